import type pg from 'pg';
import type { z } from 'zod';
import type { Ledger } from '../../ledger/ledger.js';
import { DEFAULT_TTL_MS, NEXT_IN_LINE_WAIT_MS, defaultLockDelayMs } from '../rules.js';
import { overviewOf, type Overview } from '../overview.js';
import type { ChangeListener, PlaneService } from '../plane-service.js';
import type {
  FreezeReply,
  Command,
  KernelEvent,
  LeaseRecord,
  LeaseReply,
  ReleaseReply,
  RevokeReply,
} from '../rules.js';
import type { LeaseExtensions } from '../lease-extensions.js';
import { StoreUnavailableError } from '../service.js';
import { StoreError } from '../store.js';
import { createPool, describe } from './connect.js';
import { commitBatch } from './commit-batch.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_POOL_SIZE,
  schemaOf,
  type PostgresOptions,
} from './settings.js';
import { changeNoticeSchema, channelOf, listenForChanges } from './listen.js';
import { checkSchema, migrate } from './migrations.js';
import { GroupCommit } from './group-commit.js';
import { NOW_MS, parseState, type RuleSettings, type Work } from './transaction.js';

export interface PostgresServiceOptions extends PostgresOptions {
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

const SWEEP_BATCH = 100;
const PAGE = 5_000;
/** Calls committed together at most (group commit). */
const MAX_BATCH = 64;
/** Batches in flight per replica; see GroupCommit. */
const BATCH_SLOTS = 2;
const guarded = new WeakSet<pg.PoolClient>();

// An unfreeze may free a resource too: a waiter held for it is answered again.
const FREEING = new Set<string>(['release', 'lapse', 'revoke', 'unfreeze']);

/**
 * The kernel on PostgreSQL: no state in the process. Each command is one
 * transaction that runs the shared rules on the resource's locked row; any
 * number of replicas serve one plane. NOTIFY tells every replica of each
 * change; a sweep on every replica records lapses that no call has noticed
 * (a replica that granted a lease may be gone). The ledger is read from the
 * database into memory to answer its routes.
 */
export class PostgresService implements PlaneService {
  readonly ledger: Ledger;
  private readonly schema: string;
  private readonly listeners = new Set<ChangeListener>();
  private readonly changedListeners = new Set<(resource: string) => void>();
  private readonly settings: RuleSettings;
  private readonly channel: string;
  private readonly log: (line: string) => void;
  private listener: { close(): Promise<void> } | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweepFailing = false;
  private syncing: Promise<void> | undefined;
  private closed = false;
  private readonly batches: GroupCommit<Work, unknown>;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresServiceOptions,
  ) {
    this.ledger = options.ledger;
    this.schema = schemaOf(options);
    this.channel = channelOf(this.schema);
    this.log = options.log ?? ((line) => console.error(line));
    this.batches = new GroupCommit(
      (work) =>
        commitBatch(
          {
            connect: () => this.connect(),
            settings: this.settings,
            channel: this.channel,
            onEvents: this.options.onEvents,
          },
          work,
        ),
      {
        maxBatch: MAX_BATCH,
        slots: Math.min(BATCH_SLOTS, options.poolSize ?? DEFAULT_POOL_SIZE),
        waitMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        busy: () =>
          new StoreUnavailableError("the kernel's store is busy: every connection is in use"),
      },
    );
    const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.settings = {
      ttlMs,
      nextInLineWaitMs: options.nextInLineWaitMs ?? NEXT_IN_LINE_WAIT_MS,
      lockDelayMs: options.lockDelayMs ?? defaultLockDelayMs(ttlMs),
      random: options.random ?? Math.random,
      window: options.window,
    };
  }

  /** Migrates (under an advisory lock), loads the ledger, listens, and starts the sweep. */
  static async open(options: PostgresServiceOptions): Promise<PostgresService> {
    const log = options.log ?? ((line: string) => console.error(line));
    const pool = createPool(options, log);
    const service = new PostgresService(pool, options);
    try {
      const client = await service.connect();
      try {
        await migrate(client, service.schema);
      } finally {
        client.release();
      }
      await service.syncLedger();
      const listener = listenForChanges({
        connection: options,
        channel: service.channel,
        onPayload: (payload) => service.tell(payload),
        log,
      });
      service.listener = listener;
      await listener.ready;
    } catch (error) {
      await service.close();
      if (error instanceof StoreError) throw error;
      throw new StoreError(`cannot open the PostgreSQL store: ${describe(error)}`);
    }
    service.scheduleSweep();
    return service;
  }

  lease(resource: string, actorDid: string, extensions?: LeaseExtensions): Promise<LeaseReply> {
    return this.run(resource, { kind: 'lease', actorDid, ...extensions }) as Promise<LeaseReply>;
  }

  async release(resource: string, actorDid: string, outdated?: boolean): Promise<ReleaseReply> {
    const command: Command = { kind: 'release', actorDid, ...(outdated ? { outdated } : {}) };
    const reply = (await this.run(resource, command)) as ReleaseReply;
    if (!reply.released) {
      // A revoked holder giving back ends its lock-delay without a ledger entry: wake every replica's waiters.
      const notice = JSON.stringify({ resource, events: [], freed: true });
      await this.query('SELECT pg_notify($1, $2)', [this.channel, notice]).catch(() => undefined);
    }
    return reply;
  }

  revoke(resource: string, reason: string): Promise<RevokeReply> {
    return this.run(resource, { kind: 'revoke', reason }) as Promise<RevokeReply>;
  }

  freeze(resource: string, reason: string, untilMs: number | null, by: string) {
    return this.run(resource, { kind: 'freeze', reason, untilMs, by }) as Promise<FreezeReply>;
  }

  unfreeze(resource: string, by: string) {
    return this.run(resource, { kind: 'unfreeze', by }) as Promise<FreezeReply>;
  }

  async status(resource: string): Promise<LeaseRecord | null> {
    return ((await this.run(resource, { kind: 'status' })) as { lease: LeaseRecord | null }).lease;
  }

  async overview(): Promise<Overview> {
    const { rows } = await this.query<{ state: unknown; resource: string; now_ms: number }>(
      `SELECT resource, state, ${NOW_MS} AS now_ms FROM lease_gate_resources WHERE deadline_ms IS NOT NULL OR state ? 'frozen'`,
    );
    const now = rows[0]?.now_ms ?? Date.now();
    return overviewOf(
      rows.map((r) => parseState(r.state, r.resource)),
      now,
    );
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onResourceChanged(listener: (resource: string) => void): () => void {
    this.changedListeners.add(listener);
    return () => this.changedListeners.delete(listener);
  }

  async wakeEverywhere(resource: string): Promise<void> {
    const notice = JSON.stringify({ resource, events: [], freed: true });
    await this.query('SELECT pg_notify($1, $2)', [this.channel, notice]).catch(() => undefined);
  }

  async leave(resource: string, actorDid: string): Promise<void> {
    await this.run(resource, { kind: 'leave', actorDid });
    this.resourceChanged(resource);
  }

  /** Only paces held requests on this replica; expiry is the database's clock. */
  now(): number {
    return Date.now();
  }

  private resourceChanged(resource: string): void {
    for (const listener of this.changedListeners) listener(resource);
  }

  /** Reachable, and the schema is this binary's version. */
  async ready(): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.connect();
    } catch (error) {
      throw new StoreError((error as Error).message);
    }
    try {
      await checkSchema(client, this.schema);
      client.release();
    } catch (error) {
      client.release(true);
      throw error instanceof StoreError ? error : new StoreError(describe(error));
    }
  }

  /** Reads the entries other replicas (or this one) committed since the last read. */
  syncLedger(): Promise<void> {
    this.syncing ??= (async () => {
      try {
        for (;;) {
          const { rows } = await this.query<{ line: string }>(
            'SELECT line FROM lease_gate_ledger WHERE seq >= $1 ORDER BY seq LIMIT $2',
            [this.ledger.size, PAGE],
          );
          for (const { line } of rows) {
            this.ledger.load(line, `${this.schema}.lease_gate_ledger entry ${this.ledger.size}`);
          }
          if (rows.length < PAGE) return;
        }
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    await this.listener?.close();
    await this.pool.end().catch(() => undefined);
  }

  private run(resource: string, command: Command): Promise<unknown> {
    return this.batches.submit({ resource, command });
  }

  private async connect(): Promise<pg.PoolClient> {
    if (this.closed) throw new StoreUnavailableError('the kernel is stopping');
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw new StoreUnavailableError(`the kernel's store is unreachable: ${describe(error)}`);
    }
    // A connection that breaks while checked out fails its query; its 'error' event must not crash us.
    if (!guarded.has(client)) {
      guarded.add(client);
      client.on('error', () => undefined);
    }
    return client;
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
    const client = await this.connect();
    try {
      const result = await client.query<R>(text, values);
      client.release();
      return result;
    } catch (error) {
      client.release(true);
      throw new StoreUnavailableError(`the kernel's store cannot read: ${describe(error)}`);
    }
  }

  private tell(payload: string): void {
    let parsed: z.infer<typeof changeNoticeSchema>;
    try {
      parsed = changeNoticeSchema.parse(JSON.parse(payload));
    } catch {
      this.log('kernel: ignored a change notice that is not ours');
      return;
    }
    for (const event of parsed.events) {
      const known: KernelEvent = { ...event } as KernelEvent;
      for (const listener of this.listeners) listener(parsed.resource, known);
    }
    // Every replica hears every commit (its own too): held requests here wake on it.
    if (parsed.freed || parsed.events.some((e) => FREEING.has(e.kind)))
      this.resourceChanged(parsed.resource);
  }

  /** A lapse is recorded within about a quarter of a lease (a second at most). */
  private scheduleSweep(): void {
    if (this.closed) return;
    const every = Math.min(1_000, Math.max(25, this.settings.ttlMs / 4));
    this.sweepTimer = setTimeout(() => void this.sweep(), every * (0.75 + 0.5 * Math.random()));
    this.sweepTimer.unref();
  }

  private async sweep(): Promise<void> {
    try {
      const { rows } = await this.query<{ resource: string }>(
        `SELECT resource FROM lease_gate_resources WHERE deadline_ms <= ${NOW_MS}
           ORDER BY deadline_ms LIMIT ${SWEEP_BATCH}`,
      );
      for (const { resource } of rows) {
        if (this.closed) return;
        await this.run(resource, { kind: 'expire' });
      }
      if (this.sweepFailing) this.log('kernel: the PostgreSQL store answers again');
      this.sweepFailing = false;
    } catch (error) {
      if (!this.sweepFailing) this.log(`kernel: ${(error as Error).message}`);
      this.sweepFailing = true;
    } finally {
      this.scheduleSweep();
    }
  }
}
