import type { Ledger } from '../ledger/ledger.js';
import type { LedgerEntry } from '../ledger/entry.js';
import { deploySchema } from '../plane/deploy.js';
import { AlarmHeap } from './alarms.js';
import { frees } from './event.js';
import type { LeaseExtensions } from './lease-extensions.js';
import { overviewOf, type Overview } from './overview.js';
import type { ChangeListener, PlaneService } from './plane-service.js';
import type { ResourceTable } from './core.js';
import {
  nextDeadline,
  replay,
  afterRestart,
  type Command,
  type KernelEvent,
  type LeaseRecord,
  type LeaseReply,
  type ReleaseReply,
  type ReplyFor,
  type ResourceState,
  type RevokeReply,
} from './rules.js';
import { StoreError, type KernelStore } from './store.js';
import { logTimeAfter, resumeLeases, type LogTime } from './restart.js';

/** A change could not be made durable; nothing changed. Answered 503 store_unavailable. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

export type { ResourceOverview } from './overview.js';
export type { ChangeListener } from './plane-service.js';

export interface ServiceOptions {
  table: ResourceTable;
  store: KernelStore;
  ledger: Ledger;
  /** Epoch-aligned monotonic milliseconds. */
  now: () => number;
  /** Told of every durable change, in order. */
  onEvents?: ((events: KernelEvent[]) => void) | undefined;
  /** One line per fault the service handled itself (a failed lapse write). */
  log?: ((line: string) => void) | undefined;
}

/** A decision waiting for its batch: kept in memory once the batch is durable. */
interface Decided {
  state: ResourceState;
  events: KernelEvent[];
}

interface Batch {
  events: KernelEvent[];
  decided: Decided[];
  promise: Promise<void>;
  /** Settles with the batch, never rejects: what the next command on a resource waits for. */
  settled: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

const ALARM_RETRY_MS = 1_000;
const noop = () => undefined;

/**
 * Owns the rules, the store, the ledger and the lapse alarms. Every call
 * resolves only after its change is durable: changes decided in the same
 * event-loop turn share one write and one sync (group commit). Commands on one
 * resource run one at a time against its durable state; a failed write keeps
 * memory as it was and rejects with StoreUnavailableError.
 */
export class KernelService implements PlaneService {
  readonly table: ResourceTable;
  readonly ledger: Ledger;
  readonly now: () => number;
  /** The last durable entry's time at start: the clock reads no earlier. */
  private clockFloor = -Infinity;
  /** Restart renewals a full disk did not take yet: written first, before any other change. */
  private owed: KernelEvent[] = [];
  private readonly store: KernelStore;
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly changedListeners = new Set<(resource: string) => void>();
  private readonly alarms = new AlarmHeap();
  private readonly scheduled = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private pending: Batch | undefined;
  private writing: Promise<void> | undefined;
  private closed = false;

  private constructor(private readonly options: ServiceOptions) {
    this.table = options.table;
    this.ledger = options.ledger;
    this.store = options.store;
    this.now = () => Math.max(options.now(), this.clockFloor);
  }

  /**
   * Replays the store's log into the ledger and the table, applies the restart
   * rule (`resumeLeases`) and writes its renewals, then arms the alarms.
   */
  static async open(
    options: ServiceOptions,
  ): Promise<{ service: KernelService; warning?: string }> {
    const service = new KernelService(options);
    const recovered = await options.store.open();
    const { table, ledger } = options;
    let time: LogTime | undefined;
    recovered.lines.forEach((line, i) => {
      const entry = ledger.load(line, `${options.store.describe} line ${i + 1}`);
      const event = toEvent(entry);
      table.put(replay(table.get(entry.resource), event, table.ttlMs, table.lockDelayMs));
      // Every fence in what is durable, not only grants', stays below the next one.
      table.fence = Math.max(table.fence, entry.fence);
      time = logTimeAfter(time, entry.tsMs);
    });
    table.fence = Math.max(table.fence, recovered.fenceFloor);
    // The kernel's clock never reads earlier than the log's end, whatever the wall clock did.
    if (time) service.clockFloor = time.lastMs;
    const now = service.now();
    for (const state of [...table.values()])
      table.put(afterRestart(state, now, table.ttlMs, table.lockDelayMs));
    const owed = time ? await service.resume(time, now) : undefined;
    for (const state of table.values()) service.schedule(state);
    service.arm();
    options.store.watch?.((resource) => service.resourceChanged(resource));
    const warning = [recovered.warning, owed].filter(Boolean).join('; ');
    return { service, ...(warning ? { warning } : {}) };
  }

  /**
   * Renews the leases the log leaves open (the restart rule). Written before
   * serving when the store takes it; on a full disk the renewals are owed and
   * go first in the next write, so they are still stamped as of the log's end.
   */
  private async resume(time: LogTime, now: number): Promise<string | undefined> {
    const { states, events } = resumeLeases(this.table.values(), time, now, this.table.ttlMs);
    for (const state of states) this.table.put(state);
    if (events.length === 0) return undefined;
    const prepared = this.ledger.prepare(events);
    try {
      await this.store.append(prepared.text, prepared.entries);
      this.ledger.accept(prepared.entries, prepared.lines);
    } catch (error) {
      this.owed = events;
      return `could not yet record the renewals of the ${events.length} leases held across the restart (${(error as Error).message}); they go first in the next write`;
    }
    return undefined;
  }

  lease(resource: string, actorDid: string, extensions?: LeaseExtensions): Promise<LeaseReply> {
    return this.run(resource, { kind: 'lease', actorDid, ...extensions });
  }

  async release(resource: string, actorDid: string, outdated?: boolean): Promise<ReleaseReply> {
    const command = { kind: 'release' as const, actorDid, ...(outdated ? { outdated } : {}) };
    const reply = await this.run(resource, command);
    // A revoked holder giving back changes nothing durable, but ends its lock-delay: wake the waiters.
    if (!reply.released) this.resourceChanged(resource);
    return reply;
  }

  revoke(resource: string, reason: string): Promise<RevokeReply> {
    return this.run(resource, { kind: 'revoke', reason });
  }

  freeze(resource: string, reason: string, untilMs: number | null, by: string) {
    return this.run(resource, { kind: 'freeze', reason, untilMs, by });
  }

  unfreeze(resource: string, by: string) {
    return this.run(resource, { kind: 'unfreeze', by });
  }

  async status(resource: string): Promise<LeaseRecord | null> {
    const reply = await this.run(resource, { kind: 'status' });
    return reply.lease;
  }

  /** Every resource with a live lease, a reservation or waiters. */
  overview(): Overview {
    return overviewOf(this.table.values(), this.now());
  }

  /** Told after each durable change (a grant, renewal, release, lapse or revoke). */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Takes a waiter out of the queue at once (nothing durable changes). */
  async leave(resource: string, actorDid: string): Promise<void> {
    await this.run(resource, { kind: 'leave', actorDid });
    this.resourceChanged(resource);
  }

  /**
   * Told when a resource may have become free: a release, lapse or revoke made
   * durable here, a waiter that left, or a change a shared store reports from
   * another replica (`KernelStore.watch`). Held requests wake on it.
   */
  onResourceChanged(listener: (resource: string) => void): () => void {
    this.changedListeners.add(listener);
    return () => this.changedListeners.delete(listener);
  }

  /** Raises the "resource changed" signal; any store or notifier may call it. */
  resourceChanged(resource: string): void {
    for (const listener of this.changedListeners) listener(resource);
  }

  /** Throws a StoreError when the store cannot take a write now. */
  async ready(): Promise<void> {
    await this.store.probe();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.writing) await this.writing;
    await this.store.close();
  }

  private async run<C extends Command>(resource: string, command: C): Promise<ReplyFor<C>> {
    for (let busy = this.inflight.get(resource); busy; busy = this.inflight.get(resource)) {
      await busy;
    }
    const decision = this.table.decide(resource, command, this.now());
    if (decision.events.length === 0) {
      this.keep(decision.state);
      return decision.reply;
    }
    const batch = this.enqueue({ state: decision.state, events: decision.events });
    this.inflight.set(resource, batch.settled);
    await batch.promise;
    return decision.reply;
  }

  /** Once a batch is durable: keeps its decisions and tells the listeners, in order. */
  private applied(batch: Batch): void {
    for (const { state, events } of batch.decided) {
      const { resource } = state;
      if (this.inflight.get(resource) === batch.settled) this.inflight.delete(resource);
      this.keep(state);
      for (const event of events) {
        for (const listener of this.listeners) listener(resource, event);
      }
      if (frees(events)) this.resourceChanged(resource);
    }
  }

  /** A batch that could not be written: memory stays as it was; waiting commands go on. */
  private dropped(batch: Batch): void {
    for (const { state } of batch.decided) {
      if (this.inflight.get(state.resource) === batch.settled) this.inflight.delete(state.resource);
    }
  }

  private keep(state: ResourceState): void {
    this.table.put(state);
    this.schedule(state);
    this.arm();
  }

  /** Joins this turn's batch, whose promise resolves once it is written and synced. */
  private enqueue(decided: Decided): Batch {
    if (this.closed) throw new StoreUnavailableError('the kernel is stopping');
    let batch = this.pending;
    if (!batch) {
      let resolve!: () => void;
      let reject!: (error: Error) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const settled = promise.then(noop, noop);
      batch = this.pending = { events: [], decided: [], promise, settled, resolve, reject };
      if (!this.writing) setImmediate(() => void this.flush());
    }
    batch.events.push(...decided.events);
    batch.decided.push(decided);
    return batch;
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    if (!batch || this.writing) return;
    this.pending = undefined;
    const write = (async () => {
      const owed = this.owed;
      const prepared = this.ledger.prepare(owed.length ? [...owed, ...batch.events] : batch.events);
      try {
        await this.store.append(prepared.text, prepared.entries);
        if (owed.length) this.owed = [];
      } catch (error) {
        const message = error instanceof StoreError ? error.message : String(error);
        this.dropped(batch);
        batch.reject(new StoreUnavailableError(`the kernel's store cannot write: ${message}`));
        return;
      }
      this.ledger.accept(prepared.entries, prepared.lines);
      this.options.onEvents?.(batch.events);
      this.applied(batch);
      batch.resolve();
    })();
    this.writing = write;
    await write;
    this.writing = undefined;
    if (this.pending) void this.flush();
  }

  /** Keeps one alarm per resource at its earliest deadline (a renewal needs none). */
  private schedule(state: ResourceState): void {
    const at = nextDeadline(state);
    if (at === undefined) return;
    const current = this.scheduled.get(state.resource);
    if (current !== undefined && current <= at) return;
    this.scheduled.set(state.resource, at);
    this.alarms.push(at, state.resource);
  }

  private arm(): void {
    const next = this.alarms.peek();
    if (next === undefined || next >= this.timerAt || this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(() => this.ring(), Math.max(0, next - this.now()) + 1);
    this.timer.unref();
  }

  private ring(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    for (let due = this.alarms.popDue(now); due; due = this.alarms.popDue(now)) {
      const { at, resource } = due;
      if (this.scheduled.get(resource) !== at) continue;
      this.scheduled.delete(resource);
      this.run(resource, { kind: 'expire' }).catch((error: Error) => {
        this.options.log?.(`kernel: could not record a lapse on ${resource}: ${error.message}`);
        this.scheduled.set(resource, now + ALARM_RETRY_MS);
        this.alarms.push(now + ALARM_RETRY_MS, resource);
        this.arm();
      });
    }
    this.arm();
  }
}

export function toEvent(entry: LedgerEntry): KernelEvent {
  const { kind, tsMs, resource, actorDid, leaseId, fence, expiresAtMs, reason } = entry;
  const event: KernelEvent = { kind, atMs: tsMs, resource, actorDid, leaseId, fence };
  if (expiresAtMs !== undefined) event.expiresAtMs = expiresAtMs;
  if (reason !== undefined) event.reason = reason;
  const deploy = entry.deploy && deploySchema.safeParse(entry.deploy);
  if (deploy?.success) event.deploy = deploy.data;
  return event;
}
