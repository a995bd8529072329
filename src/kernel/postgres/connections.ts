import type pg from 'pg';
import type { Ledger } from '../../ledger/ledger.js';
import { failoverHold } from '../rules/failover.js';
import { StoreError, StoreUnavailableError } from '../store/store-error.js';
import { createPool, describe } from './connect.js';
import type { PostgresOptions } from './settings.js';
import { followTimeline, type TimelineSeen } from './timeline.js';

const guarded = new WeakSet<pg.PoolClient>();
/** Connections that checked the database's timeline (timeline.ts) before their first use. */
const followed = new WeakSet<pg.PoolClient>();

/**
 * A replica's connections to the database: every one of the main pool is checked against
 * the database's timeline before its first use, so a failover is seen (the hold that
 * follows it, and a replica whose ledger read entries the failover lost stops serving).
 */
export class Connections {
  readonly pool: pg.Pool;
  /**
   * The sequencer's own connection: its watermark waits for commits in flight, and a
   * commit stuck on a row lock must not leave a batch without a connection meanwhile.
   */
  readonly sequencerPool: pg.Pool;
  /** The latest timeline change any connection found (changedMs 0: none): the failover hold. */
  private timeline: TimelineSeen | undefined;
  /** Set when this replica's ledger holds entries a failover lost: it then serves nothing. */
  private forked: string | undefined;
  private stopped = false;

  constructor(
    options: PostgresOptions,
    private readonly ledger: Ledger,
    private readonly ttlMs: number,
    private readonly log: (line: string) => void,
  ) {
    this.pool = createPool(options, log);
    this.sequencerPool = createPool({ ...options, poolSize: 1 }, log);
  }

  /** The failover hold at `now` (rules/failover.ts), from the latest timeline change found. */
  hold(now: number) {
    const seen = this.timeline;
    return seen && failoverHold(seen.changedMs, this.ttlMs, now, seen.timeline);
  }

  /** No connection is handed out from now on: the kernel is stopping. */
  stop(): void {
    this.stopped = true;
  }

  async end(): Promise<void> {
    await Promise.all([this.pool.end(), this.sequencerPool.end()]).catch(() => undefined);
  }

  /**
   * A pooled connection. One of the main pool is first checked against the database's
   * timeline (`follow`, timeline.ts): a failover is seen before anything is decided on
   * the promoted standby, and a standby (still in recovery) is never used.
   */
  async connect(pool = this.pool, follow = true): Promise<pg.PoolClient> {
    if (this.stopped) throw new StoreUnavailableError('the kernel is stopping');
    if (this.forked) throw new StoreUnavailableError(this.forked);
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw new StoreUnavailableError(`the kernel's store is unreachable: ${describe(error)}`, {
        cause: error,
      });
    }
    // A connection that breaks while checked out fails its query; its 'error' event must not crash us.
    if (!guarded.has(client)) {
      guarded.add(client);
      client.on('error', () => undefined);
    }
    // The sequencer's too: it numbers entries only once the change and the ledger's size then are recorded.
    if (follow && !followed.has(client)) {
      try {
        this.sawTimeline(await followTimeline(client));
        if (this.forked) throw new StoreUnavailableError(this.forked);
        followed.add(client);
      } catch (error) {
        client.release(true);
        if (error instanceof StoreError || error instanceof StoreUnavailableError) throw error;
        throw new StoreUnavailableError(
          `the kernel's store cannot be written (a standby?): ${describe(error)}`,
          { cause: error },
        );
      }
    }
    return client;
  }

  /**
   * Keeps the latest timeline change found, and says when one is first seen here. A
   * replica that read more of the ledger than the new primary had when the change was
   * recorded holds entries (signed, perhaps exported) that the failover lost: numbering
   * goes on from the shorter ledger, so this replica would sign two histories. It stops
   * serving (503 to every call, /readyz failing) until it is restarted, which reads the
   * new primary's ledger from its rows.
   */
  private sawTimeline(seen: TimelineSeen): void {
    const before = this.timeline;
    if (before && before.timeline === seen.timeline && before.changedMs >= seen.changedMs) return;
    if (before && seen.changedMs < before.changedMs) return;
    this.timeline = seen;
    if (!before || before.timeline === seen.timeline) return;
    this.log(
      `kernel: the database is now on timeline ${seen.timeline} (was ${before.timeline}): fences start above ${seen.timeline}'s epoch, and no lease is granted or renewed until ${new Date(seen.changedMs + this.ttlMs).toISOString()}`,
    );
    if (this.ledger.size > seen.sizeAtChange) {
      this.forked = `this replica read ${this.ledger.size} ledger entries, but the database had ${seen.sizeAtChange} when it failed over to timeline ${seen.timeline} (asynchronous replication lost the rest): restart this replica to read the ledger the new primary has`;
      this.log(`kernel: ${this.forked}`);
    }
  }

  async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
    try {
      return await this.withClient(this.pool, (client) => client.query<R>(text, values));
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError(`the kernel's store cannot read: ${describe(error)}`, {
        cause: error,
      });
    }
  }

  /** A pooled connection for one task; one that failed is closed, never reused. */
  async withClient<T>(pool: pg.Pool, task: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.connect(pool);
    try {
      const result = await task(client);
      client.release();
      return result;
    } catch (error) {
      client.release(true);
      throw error;
    }
  }
}
