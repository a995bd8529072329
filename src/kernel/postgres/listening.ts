import { NOW_MS } from './transaction.js';
import { causeText } from '../../errors.js';

/** How long a registration lasts in lease_gate_listening (the database's clock). */
export const LISTEN_FOR_MS = 5 * 60_000;
/**
 * A registration is renewed once this old, so it outlives anything that relies on
 * it (a held request or a watch is held 25 s at most, and registers again to be held again).
 */
export const RENEW_AFTER_MS = 60_000;

type Query = (text: string, values: unknown[]) => Promise<unknown>;

/**
 * This replica's rows of lease_gate_listening: the resources on which it holds
 * requests or watches, so that another replica's commit on one of them tells it
 * (NOTIFY) and a commit on any other resource tells nobody. A caller registers
 * before it looks at the resource (its first ask, a watch's status): a commit
 * reads the rows after its row locks, so one that changes the resource after
 * the look sees the row, and one before it is what the look sees.
 *
 * A registration that fails is logged and not remembered: the request goes on,
 * and is woken by its own told wait instead (a wake-up is never a record).
 */
export class Listening {
  /** When each resource was last registered here (this process's monotonic clock). */
  private readonly registered = new Map<string, number>();
  private readonly pending = new Map<string, Promise<void>>();
  private failing = false;

  constructor(
    private readonly query: Query,
    private readonly replica: string,
    private readonly log: (line: string) => void,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Resolves once a commit on `resource` that follows will be told to this replica. */
  listen(resource: string): Promise<void> {
    const at = this.registered.get(resource);
    if (at !== undefined && this.clock() - at < RENEW_AFTER_MS) return Promise.resolve();
    const running = this.pending.get(resource);
    if (running) return running;
    const started = this.clock();
    // No wait for the WAL flush: a row is seen by every commit once committed, and a
    // database that loses it (a crash) breaks the LISTEN connection too, after which `again`.
    const registering = this.query(
      `WITH quick AS (SELECT set_config('synchronous_commit', 'off', true))
       INSERT INTO lease_gate_listening (resource, replica, until_ms)
         SELECT $1, $2, ${NOW_MS} + ${LISTEN_FOR_MS} FROM quick
         ON CONFLICT (resource, replica) DO UPDATE SET until_ms = EXCLUDED.until_ms`,
      [resource, this.replica],
    )
      .then(
        () => {
          this.registered.set(resource, started);
          if (this.failing) this.log('kernel: registers its listeners again');
          this.failing = false;
        },
        (error: unknown) => {
          if (!this.failing)
            this.log(
              `kernel: could not register a listener; held requests and watches here wake at their told wait instead: ${causeText(error)}`,
            );
          this.failing = true;
        },
      )
      .finally(() => this.pending.delete(resource));
    this.pending.set(resource, registering);
    return registering;
  }

  /**
   * The database may have lost the rows (the LISTEN connection broke): writes again
   * every registration that may be in use, so requests held meanwhile are told again.
   */
  async again(): Promise<void> {
    const recent = [...this.registered.keys()];
    this.registered.clear();
    await Promise.all(recent.map((resource) => this.listen(resource)));
  }

  /**
   * Deletes every replica's registrations that ran out (a replica that died leaves its
   * own), and forgets this replica's that are due for renewal anyway.
   */
  async prune(): Promise<void> {
    const now = this.clock();
    for (const [resource, at] of this.registered)
      if (now - at >= RENEW_AFTER_MS) this.registered.delete(resource);
    await this.query(`DELETE FROM lease_gate_listening WHERE until_ms < ${NOW_MS}`, []);
  }

  /** This replica's rows go when it stops: no commit tells a replica that is gone. */
  async close(): Promise<void> {
    this.registered.clear();
    await this.query('DELETE FROM lease_gate_listening WHERE replica = $1', [this.replica]);
  }
}
