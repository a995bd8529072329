import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { LedgerEntry } from '../../ledger/entry.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { Backend, ChangeNotice, Opened } from '../store/backend.js';
import { overviewOf, type Overview } from '../rules/overview.js';
import {
  DEFAULT_TTL_MS,
  NEXT_IN_LINE_WAIT_MS,
  defaultLockDelayMs,
  type Decision,
  type KernelEvent,
} from '../rules/rules.js';
import { KernelService } from '../service/service.js';
import { StoreError, StoreUnavailableError } from '../store/store-error.js';
import type { Work } from '../rules/work.js';
import { commitBatch } from './commit-batch.js';
import { createPool, describe } from './connect.js';
import type { GroupCommitOptions } from '../store/group-commit.js';
import { batchingOf } from './batching.js';
import { Connections } from './connections.js';
import { PostgresLedger } from './ledger-tree.js';
import { DbClock, RowCache } from './rows.js';
import { channelOf, listenForChanges, noticesSchema } from './listen.js';
import { Listening } from './listening.js';
import { planeLocks, type PlaneLocks } from './locks.js';
import { NoticeSender, changesOf, noticePrefix } from './notices.js';
import { checkSchema, migrate } from './migrations.js';
import { checkPlaneKey } from './plane-key.js';
import { SEQUENCE_BATCH, sequenceOnce } from './sequencer.js';
import { schemaOf, type PostgresOptions } from './settings.js';
import { NOW_MS, parseState, type RuleSettings } from './transaction.js';
import { causeText } from '../../errors.js';

export interface PostgresBackendOptions extends PostgresOptions {
  ledger: Ledger;
  ttlMs?: number | undefined;
  nextInLineWaitMs?: number | undefined;
  lockDelayMs?: number | undefined;
  random?: (() => number) | undefined;
  window?: RuleSettings['window'];
  /** Told of every durable change made by this replica, in order. */
  onEvents?: ((events: KernelEvent[]) => void) | undefined;
  log?: ((line: string) => void) | undefined;
}

/**
 * How soon after a commit its entries are sequenced: more commits join the same pass, and
 * a pass is a few round trips and a WAL flush of its own (a ledger read runs one first).
 */
const SEQUENCE_AFTER_MS = 50;
/** Every replica sequences this often too, so a replica that died leaves nothing pending. */
const SEQUENCE_EVERY_MS = 1_000;
/** Sequencing transactions per pass at most (each numbers up to SEQUENCE_BATCH entries). */
const SEQUENCE_ROUNDS = 50;
/** How often a replica deletes registrations to listen that ran out (listening.ts). */
const PRUNE_EVERY_MS = 60_000;

/** The kernel on PostgreSQL: the one service (service.ts) over this backend. */
export type PostgresService = KernelService;

export const PostgresService = {
  /** Migrates (under an advisory lock), loads the ledger, listens, and starts the sweep. */
  async open(options: PostgresBackendOptions): Promise<PostgresService> {
    const { service } = await KernelService.over(new PostgresBackend(options), options);
    return service;
  },
};

/**
 * The kernel's state in PostgreSQL: no state in the process. Each batch is one
 * transaction that runs the shared rules on the resources' locked rows at the
 * database's clock; any number of replicas serve one plane. A replica tells its own
 * waiters of its changes at once; NOTIFY tells only the other replicas registered as
 * listening for a changed resource (lease_gate_listening); the service sweeps `due` on every
 * replica for lapses no call has noticed (a replica that granted a lease may
 * be gone). The ledger's lines stay in the database: a replica keeps its Merkle
 * tree's chunk roots and reads back the lines a route asks for (FetchedLines).
 */
export class PostgresBackend implements Backend {
  readonly ledger: Ledger;
  readonly shared = true;
  readonly name = 'the PostgreSQL store';
  readonly ttlMs: number;
  readonly batching: GroupCommitOptions;
  /** The replica's connections, checked against the database's timeline (connections.ts). */
  private readonly connections: Connections;
  /** Change notices, sent after their commits on a connection of their own (notices.ts). */
  private readonly notices: NoticeSender;
  /** How this replica's own notices begin: it has told its own changes already. */
  private readonly ownNotices: string;
  /** This replica's name: in its notices, and in lease_gate_listening. */
  private readonly replica: string;
  private readonly schema: string;
  private readonly settings: RuleSettings;
  private readonly channel: string;
  private readonly log: (line: string) => void;
  private heard: ((notice: ChangeNotice) => void) | undefined;
  private sequenced: ((entries: readonly LedgerEntry[]) => void) | undefined;
  private listener: { close(): Promise<void> } | undefined;
  /** The ledger's rows, read back and kept in a tree here (ledger-tree.ts). */
  private readonly lines: PostgresLedger;
  private readonly locks: PlaneLocks;
  /** The pass of the sequencer that will start next, and the one running (at most one of each). */
  private queued: { wait: boolean; done: Promise<void> } | undefined;
  private running: Promise<void> = Promise.resolve();
  private sequenceTimer: NodeJS.Timeout | undefined;
  private sequenceEvery: NodeJS.Timeout | undefined;
  private pruneEvery: NodeJS.Timeout | undefined;
  /** The resources this replica asked to hear other replicas' changes of. */
  private readonly listening: Listening;
  /** The rows this replica decides against, and its view of the database's clock (commit.ts). */
  private readonly optimistic = { rows: new RowCache(), clock: new DbClock() };
  private closed = false;

  constructor(private readonly options: PostgresBackendOptions) {
    this.ledger = options.ledger;
    this.schema = schemaOf(options);
    this.channel = channelOf(this.schema);
    this.locks = planeLocks(this.schema);
    this.log = options.log ?? ((line) => console.error(line));
    const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.ttlMs = ttlMs;
    this.connections = new Connections(options, this.ledger, ttlMs, this.log);
    this.lines = new PostgresLedger(
      this.ledger,
      this.schema,
      (text, values) => this.connections.query(text, values),
      this.log,
    );
    const from = randomBytes(8).toString('hex');
    this.ownNotices = noticePrefix(from);
    this.replica = from;
    // The pool's own query: a stopping replica still deletes its registrations.
    const { pool } = this.connections;
    this.listening = new Listening((text, values) => pool.query(text, values), from, this.log);
    this.notices = new NoticeSender(
      createPool({ ...options, poolSize: 1 }, this.log),
      this.channel,
      this.log,
      from,
    );
    this.batching = batchingOf(options);
    this.settings = {
      ttlMs,
      nextInLineWaitMs: options.nextInLineWaitMs ?? NEXT_IN_LINE_WAIT_MS,
      lockDelayMs: options.lockDelayMs ?? defaultLockDelayMs(ttlMs),
      random: options.random ?? Math.random,
      window: options.window,
    };
  }

  async open(): Promise<Opened> {
    try {
      // Before the timeline is followed: a new schema's lease_gate_timeline is made here.
      const client = await this.connections.connect(this.connections.pool, false);
      try {
        await migrate(client, this.schema);
        await checkPlaneKey(client, this.ledger.publicKey);
      } finally {
        client.release();
      }
      // The lines stay in the database: this replica keeps the tree and reads back what a route asks for.
      const notTaken = await this.lines.openTree();
      await this.syncLedger();
      if (notTaken) await this.lines.checkRowsAgainst(notTaken);
      const listener = listenForChanges({
        connection: this.options,
        channel: this.channel,
        onPayload: (payload) => this.tell(payload),
        // Registered again first, so the held requests woken then are told from now on.
        onReconnect: () => void this.listening.again().then(() => this.missedNotices()),
        log: this.log,
      });
      this.listener = listener;
      await listener.ready;
      this.sequenceEvery = setInterval(() => this.sequenceSoon(0), SEQUENCE_EVERY_MS);
      this.sequenceEvery.unref();
      this.pruneEvery = setInterval(() => {
        this.listening.prune().catch((error: unknown) => {
          if (!this.closed) this.log(`kernel: could not prune listeners: ${describe(error)}`);
        });
      }, PRUNE_EVERY_MS);
      this.pruneEvery.unref();
    } catch (error) {
      await this.close();
      if (error instanceof StoreError) throw error;
      throw new StoreError(`cannot open the PostgreSQL store: ${describe(error)}`, {
        cause: error,
      });
    }
    return {};
  }

  async commit(work: readonly Work[]): Promise<Array<PromiseSettledResult<Decision>>> {
    const { results, listened } = await commitBatch(
      {
        connect: () => this.connections.connect(),
        settings: this.settings,
        locks: this.locks,
        replica: this.replica,
        ...this.optimistic,
        // Read at each transaction's `now`: a connection opened within this batch may be the
        // first to find the new timeline.
        hold: (now) => this.connections.hold(now),
      },
      [...work],
    );
    const events = results.flatMap((r) => (r.status === 'fulfilled' ? r.value.events : []));
    if (events.length > 0) {
      const changes = changesOf(events);
      // Told to the other replicas only where one listens (it holds requests or watches there).
      const wanted = changes.filter((c) => listened.has(c.resource));
      if (wanted.length > 0) this.notices.changed(wanted);
      this.sequenceSoon(SEQUENCE_AFTER_MS);
      // This replica's own changes are told here, at once; the others hear them by NOTIFY.
      // They are committed: a listener that throws is logged, never the batch's failure.
      for (const change of changes) {
        try {
          this.heard?.(change);
        } catch (error) {
          this.log(`kernel: a change listener failed: ${describe(error)}`);
        }
      }
    }
    return results;
  }

  /**
   * Numbers what has committed into the ledger (sequencer.ts): one pass after
   * the last one started here ends. `wait`: take our turn even when another
   * replica is sequencing (a ledger read must see every change answered before it).
   */
  sequence(wait: boolean): Promise<void> {
    if (this.queued) {
      this.queued.wait ||= wait;
      return this.queued.done;
    }
    const queued = { wait, done: Promise.resolve() };
    queued.done = this.running.then(async () => {
      this.queued = undefined;
      for (let round = 0; round < SEQUENCE_ROUNDS; round += 1) {
        const numbered = await this.connections.withClient(
          this.connections.sequencerPool,
          (client) => sequenceOnce(client, this.locks, queued.wait),
        );
        // Another replica is at it (it numbers ours too), or nothing more is there.
        if (numbered === undefined || numbered.length === 0) return;
        this.sequenced?.(numbered);
        // A pass that was not full took everything committed before it began: what came
        // since waits for the next pass, so passes stay large under load (each is a
        // watermark, two round trips and a WAL flush however few entries it numbers).
        if (numbered.length < SEQUENCE_BATCH) return;
      }
    });
    this.queued = queued;
    this.running = queued.done.catch(() => undefined);
    return queued.done;
  }

  /** A pass soon, in the background; a failure is told and tried again by the next one. */
  private sequenceSoon(delayMs: number): void {
    if (this.sequenceTimer || this.closed) return;
    this.sequenceTimer = setTimeout(() => {
      this.sequenceTimer = undefined;
      if (this.closed) return;
      this.sequence(false).catch((error: unknown) => {
        if (!this.closed) this.log(`kernel: sequencing the ledger failed: ${describe(error)}`);
      });
    }, delayMs);
    this.sequenceTimer.unref();
  }

  /**
   * The LISTEN connection came back: what was notified meanwhile is lost, so
   * every resource someone waits for is told it may be free and held requests ask again.
   */
  private async missedNotices(): Promise<void> {
    try {
      const { rows } = await this.connections.query<{ resource: string }>(
        `SELECT resource FROM lease_gate_resources WHERE jsonb_array_length(state->'queue') > 0`,
      );
      for (const { resource } of rows) this.heard?.({ resource, events: [], freed: true });
    } catch (error) {
      this.log(`kernel: could not wake the held requests after reconnecting: ${describe(error)}`);
    }
  }

  async due(limit: number): Promise<string[]> {
    const { rows } = await this.connections.query<{ resource: string }>(
      `SELECT resource FROM lease_gate_resources WHERE deadline_ms <= ${NOW_MS}
         ORDER BY deadline_ms LIMIT ${Math.floor(limit)}`,
    );
    return rows.map((r) => r.resource);
  }

  /** None: the sweep finds them, whichever replica decided them. */
  deadlines = (): Iterable<{ resource: string; at: number }> => [];

  watch(listener: (notice: ChangeNotice) => void): void {
    this.heard = listener;
  }

  /** Another replica's commits on `resource` are told here from now on (listening.ts). */
  listen(resource: string): Promise<void> {
    return this.listening.listen(resource);
  }

  onSequenced(listener: (entries: readonly LedgerEntry[]) => void): void {
    this.sequenced = listener;
  }

  /** A revoked holder giving back ends its lock-delay without a ledger entry: wake every replica's waiters. */
  async announceFreed(resource: string): Promise<void> {
    this.heard?.({ resource, events: [], freed: true });
    this.notices.freed(resource);
    await this.notices.idle();
  }

  /** Only paces held requests on this replica; expiry is the database's clock. */
  now(): number {
    return Date.now();
  }

  async overview(): Promise<Overview> {
    const { rows } = await this.connections.query<{
      state: unknown;
      resource: string;
      now_ms: number;
    }>(
      `SELECT resource, state, ${NOW_MS} AS now_ms FROM lease_gate_resources WHERE deadline_ms IS NOT NULL OR state ? 'frozen'`,
    );
    const now = rows[0]?.now_ms ?? Date.now();
    return overviewOf(
      rows.map((r) => parseState(r.state, r.resource)),
      now,
    );
  }

  /** Reachable, and the schema is this binary's version. */
  async ready(): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.connections.connect();
    } catch (error) {
      throw new StoreError(causeText(error), { cause: error });
    }
    try {
      await checkSchema(client, this.schema);
      client.release();
    } catch (error) {
      client.release(true);
      throw error instanceof StoreError ? error : new StoreError(describe(error));
    }
  }

  /** Sequences what has committed, then reads the entries numbered since the last read. */
  async syncLedger(): Promise<void> {
    try {
      await this.sequence(true);
    } catch (error) {
      throw error instanceof StoreError
        ? error
        : new StoreUnavailableError(`the kernel's store cannot sequence: ${describe(error)}`);
    }
    return this.lines.readAfterNow();
  }

  /** See PlaneService.searchLedger: one statement, however far back it looks. */
  searchLedger(needle: string, from: number, limit: number): Promise<number[]> {
    return this.lines.search(needle, from, limit);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.connections.stop();
    if (this.sequenceTimer) clearTimeout(this.sequenceTimer);
    if (this.sequenceEvery) clearInterval(this.sequenceEvery);
    if (this.pruneEvery) clearInterval(this.pruneEvery);
    await this.running;
    await this.listening.close().catch(() => undefined);
    await this.notices.close();
    await this.listener?.close();
    await this.connections.end();
  }

  /** Another replica's commits on resources this one listens for (its own are told in `commit`). */
  private tell(payload: string): void {
    if (payload.startsWith(this.ownNotices)) return;
    let notices: ChangeNotice[];
    try {
      notices = noticesSchema.parse(JSON.parse(payload)).changes;
    } catch {
      this.log('kernel: ignored a change notice that is not ours');
      return;
    }
    for (const notice of notices) this.heard?.(notice);
  }
}
