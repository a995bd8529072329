import type { Ledger } from '../ledger/ledger.js';
import type { LedgerEntry } from '../ledger/entry.js';
import { deploySchema } from '../plane/deploy.js';
import type { Backend, Opened } from './backend.js';
import type { ResourceTable } from './core.js';
import { overviewOf, type Overview } from './overview.js';
import { logTimeAfter, resumeLeases, type LogTime } from './restart.js';
import {
  afterRestart,
  nextDeadline,
  replay,
  type Decision,
  type KernelEvent,
  type ResourceState,
} from './rules.js';
import { StoreError, StoreUnavailableError } from './store-error.js';
import type { KernelStore } from './store.js';
import type { Work } from './work.js';

export interface LocalBackendOptions {
  table: ResourceTable;
  store: KernelStore;
  ledger: Ledger;
  /** Epoch-aligned monotonic milliseconds. */
  now: () => number;
}

/**
 * The backend of one process: the states in memory (the table), the record in
 * a store's append-only log (memory: none; a file: fdatasync'ed per batch). A
 * batch is decided on the table, its entries numbered by the ledger, written
 * with one append, and only then kept. The clock never reads earlier than the
 * log's end. Not shared: this process is the only one that changes it.
 */
export class LocalBackend implements Backend<Overview> {
  readonly ledger: Ledger;
  readonly shared = false;
  readonly batching = {
    maxBatch: Infinity,
    // One write at a time, each gathering every call of its event-loop turn.
    slots: 1,
    waitMs: Infinity,
    gatherTurn: true,
    busy: () => new StoreUnavailableError("the kernel's store is busy"),
  };
  readonly name: string;
  readonly ttlMs: number;
  private readonly table: ResourceTable;
  private readonly store: KernelStore;
  /** The last durable entry's time at start: the clock reads no earlier. */
  private clockFloor = -Infinity;
  /** Restart renewals a full disk did not take yet: written first, before any other change. */
  private owed: KernelEvent[] = [];
  private closed = false;

  constructor(private readonly options: LocalBackendOptions) {
    this.table = options.table;
    this.store = options.store;
    this.ledger = options.ledger;
    this.name = options.store.describe;
    this.ttlMs = options.table.ttlMs;
  }

  now(): number {
    return Math.max(this.options.now(), this.clockFloor);
  }

  /**
   * Replays the store's log into the ledger and the table, applies the restart
   * rule (`resumeLeases`) and writes its renewals.
   */
  async open(): Promise<Opened> {
    const recovered = await this.store.open();
    const { table, ledger } = this;
    let time: LogTime | undefined;
    recovered.lines.forEach((line, i) => {
      const entry = ledger.load(line, `${this.store.describe} line ${i + 1}`);
      const event = toEvent(entry);
      table.put(replay(table.get(entry.resource), event, table.ttlMs, table.lockDelayMs));
      // Every fence in what is durable, not only grants', stays below the next one.
      table.fence = Math.max(table.fence, entry.fence);
      time = logTimeAfter(time, entry.tsMs);
    });
    table.fence = Math.max(table.fence, recovered.fenceFloor);
    // The kernel's clock never reads earlier than the log's end, whatever the wall clock did.
    if (time) this.clockFloor = time.lastMs;
    const now = this.now();
    for (const state of [...table.values()])
      table.put(afterRestart(state, now, table.ttlMs, table.lockDelayMs));
    const owed = time ? await this.resume(time, now) : undefined;
    const warning = [recovered.warning, owed].filter(Boolean).join('; ');
    return warning ? { warning } : {};
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

  /**
   * A failed write keeps memory as it was for every resource the batch changed
   * durably; the others (a refusal, a status, a queue that moved) are answered.
   */
  async commit(work: readonly Work[]): Promise<Array<PromiseSettledResult<Decision>>> {
    const now = this.now();
    const current = new Map<string, ResourceState>();
    const durable = new Set<string>();
    const decisions = work.map((item) => {
      const before = current.get(item.resource) ?? this.table.get(item.resource);
      const decision = item.decide(before, this.table.context(item.resource, now));
      current.set(item.resource, decision.state);
      if (decision.events.length > 0) durable.add(item.resource);
      return decision;
    });
    let failure: StoreUnavailableError | undefined;
    if (durable.size > 0 && this.closed) {
      failure = new StoreUnavailableError('the kernel is stopping');
    } else if (durable.size > 0) {
      const events = decisions.flatMap((d) => d.events);
      const owed = this.owed;
      const prepared = this.ledger.prepare(owed.length ? [...owed, ...events] : events);
      try {
        await this.store.append(prepared.text, prepared.entries);
        if (owed.length) this.owed = [];
        this.ledger.accept(prepared.entries, prepared.lines);
      } catch (error) {
        const message = error instanceof StoreError ? error.message : String(error);
        failure = new StoreUnavailableError(`the kernel's store cannot write: ${message}`);
      }
    }
    for (const [resource, state] of current) {
      if (!failure || !durable.has(resource)) this.table.put(state);
    }
    return decisions.map((value) =>
      failure && durable.has(value.state.resource)
        ? { status: 'rejected', reason: failure }
        : { status: 'fulfilled', value },
    );
  }

  async due(limit: number): Promise<string[]> {
    const now = this.now();
    return [...this.deadlines()]
      .filter((d) => d.at <= now)
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map((d) => d.resource);
  }

  *deadlines(): Iterable<{ resource: string; at: number }> {
    for (const state of this.table.values()) {
      const at = nextDeadline(state);
      if (at !== undefined) yield { resource: state.resource, at };
    }
  }

  overview(): Overview {
    return overviewOf(this.table.values(), this.now());
  }

  /** Throws a StoreError when the store cannot take a write now. */
  ready(): Promise<void> {
    return this.store.probe();
  }

  close(): Promise<void> {
    this.closed = true;
    return this.store.close();
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
