import type { Ledger } from '../../ledger/ledger.js';
import type { LedgerEntry } from '../../ledger/entry.js';
import type { Backend, ChangeNotice, Opened } from './backend.js';
import type { ResourceTable } from '../rules/core.js';
import { overviewOf, type Overview } from '../rules/overview.js';
import { toEvent } from './entry-event.js';
import {
  openLogView,
  snapshotDisagrees,
  snapshotPieces,
  type Replayed,
  type SnapshotTaken,
} from './log-view.js';
import { logTimeAfter, resumeLeases, type LogTime } from './restart.js';
import {
  afterRestart,
  nextDeadline,
  replay,
  type Decision,
  type KernelEvent,
} from '../rules/rules.js';
import {
  checkSignedHistory,
  readSignedRecord,
  signedRecordPath,
  writeSignedRecord,
} from './signed-record.js';
import { StoreError, StoreUnavailableError } from './store-error.js';
import { isLogFileStore, type KernelStore, type LogFileStore } from './store.js';
import { decideBatch, type Work } from '../rules/work.js';
import { causeText } from '../../errors.js';

export { toEvent };

export interface LocalBackendOptions {
  table: ResourceTable;
  store: KernelStore;
  ledger: Ledger;
  /** Epoch-aligned monotonic milliseconds. */
  now: () => number;
  /** Where a start's notices go (a signed record written from the log as it is). */
  log?: ((line: string) => void) | undefined;
}

/** Entries between two snapshots of a file kernel: a restart replays at most about this many. */
const SNAPSHOT_EVERY = 16_384;

/**
 * The backend of one process: the states in memory (the table), the record in
 * a store's append-only log (memory: none; a file: fdatasync'ed per batch). A
 * batch is decided on the table, its entries numbered by the ledger, written
 * with one append, and only then kept. The clock never reads earlier than the
 * log's end. Not shared: this process is the only one that changes it.
 */
export class LocalBackend implements Backend {
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
  /** The lines are in this process: the service reads them itself. */
  readonly searchLedger = undefined;
  private readonly table: ResourceTable;
  private readonly store: KernelStore;
  /** The last durable entry's time at start: the clock reads no earlier. */
  private clockFloor = -Infinity;
  /** Restart renewals a full disk did not take yet: written first, before any other change. */
  private owed: KernelEvent[] = [];
  private closed = false;
  private replayed: Replayed | undefined;
  /** A snapshot read at start but not used: its size and root, checked against the log read whole. */
  private snapshotTaken: SnapshotTaken | undefined;
  private sequenced: ((entries: readonly LedgerEntry[]) => void) | undefined;
  private heard: ((notice: ChangeNotice) => void) | undefined;

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
    const { table, ledger } = this;
    let time: LogTime | undefined;
    let recovered: { fenceFloor: number; warning?: string };
    if (isLogFileStore(this.store)) {
      const opened = await openLogView(this.store, table, ledger);
      const { replayed } = opened;
      this.replayed = replayed;
      this.snapshotTaken = opened.snapshotTaken;
      recovered = opened;
      try {
        await this.holdToSigned(this.store);
      } catch (error) {
        // Refused before anything was served: nothing of this start stays open.
        await this.store.close();
        replayed.lines.close();
        throw error;
      }
      time = replayed.time;
      // Copies: the rules may change a state's arrays in place, and the view must not follow.
      for (const state of replayed.table.values()) table.put(structuredClone(state));
      table.fence = Math.max(table.fence, replayed.table.fence);
    } else {
      const log = await this.store.open();
      recovered = log;
      log.lines.forEach((line, i) => {
        const entry = ledger.load(line, `${this.store.describe} line ${i + 1}`);
        table.put(
          replay(table.get(entry.resource), toEvent(entry), table.ttlMs, table.lockDelayMs),
        );
        // Every fence in what is durable, not only grants', stays below the next one.
        table.fence = Math.max(table.fence, entry.fence);
        time = logTimeAfter(time, entry.tsMs);
      });
    }
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
   * A file kernel signs only the history it signed before: its log, replayed,
   * must have at the last signed checkpoint's size that checkpoint's root
   * (else StartRefusedError, before anything is served or written), and every
   * larger checkpoint is recorded beside the log before it goes out. Checked
   * with or without a signing key this run: a later run may have one. A log
   * with entries and no record gets one at start, of the log as it is (a first
   * start since the record came in, or one deleted), after its snapshot is checked.
   */
  private async holdToSigned(store: LogFileStore): Promise<void> {
    let last = readSignedRecord(store.path);
    if (last) checkSignedHistory(this.ledger, last, store.path);
    this.holdToSnapshot(store);
    if (!last && this.ledger.size > 0) {
      // A log with no record (a first start since the record came in, or one removed): the
      // log as it is becomes the history held to, before anything is served.
      const record = { size: this.ledger.size, root: this.ledger.rootAt() };
      try {
        await writeSignedRecord(store.path, record);
        last = record;
        this.options.log?.(
          `notice: ${signedRecordPath(store.path)} was missing: it now holds the log's ${record.size} entries as the history a restart is held to`,
        );
      } catch (error) {
        // A full disk must not stop a kernel from starting over its whole log: the record
        // is written with the next checkpoint signed, which goes out only once it is.
        this.options.log?.(
          `warning: ${signedRecordPath(store.path)} is missing and could not be written now (${causeText(error)}); it is written before the next checkpoint goes out`,
        );
      }
    }
    if (this.ledger.signs)
      this.ledger.keepSignedIn({ keep: (signed) => writeSignedRecord(store.path, signed) }, last);
  }

  /**
   * A snapshot the start did not use must still agree with the log read whole:
   * its last entry where it says (else it was cut short or rewritten since),
   * and the log's root at its size (else it was rewritten: a snapshot taken
   * with another lease lifetime, say). Else StartRefusedError.
   */
  private holdToSnapshot(store: LogFileStore): void {
    const taken = this.snapshotTaken;
    this.snapshotTaken = undefined;
    if (!taken) return;
    if (
      !taken.root ||
      this.ledger.size < taken.size ||
      this.ledger.rootAt(taken.size) !== taken.root
    )
      throw snapshotDisagrees(store.path, taken.size);
  }

  /** Writes the snapshot of what is durable now (log-view.ts), when there is something to write. */
  private async snapshot(): Promise<void> {
    const replayed = this.replayed;
    const body = replayed && (await snapshotPieces(replayed, this.ledger));
    if (body) await replayed.store.writeSnapshot(body);
  }

  /** See Backend.onSequenced: told as each write is durable, in the ledger's order. */
  onSequenced(listener: (entries: readonly LedgerEntry[]) => void): void {
    this.sequenced = listener;
  }

  /**
   * Tells what became durable, follows it in the file kernel's view of its log,
   * and now and then (off the answer path) snapshots it.
   */
  private recorded(entries: readonly LedgerEntry[]): void {
    this.sequenced?.(entries);
    const replayed = this.replayed;
    if (!replayed) return;
    const { table } = replayed;
    for (const entry of entries) {
      table.put(replay(table.get(entry.resource), toEvent(entry), table.ttlMs, table.lockDelayMs));
      table.fence = Math.max(table.fence, entry.fence);
      replayed.time = logTimeAfter(replayed.time, entry.tsMs);
    }
    replayed.since += entries.length;
    if (replayed.since >= SNAPSHOT_EVERY && !replayed.writing) {
      replayed.writing = new Promise<void>((done) => setImmediate(done))
        .then(() => this.snapshot())
        // The snapshot only saves time: one that cannot be written costs a longer restart.
        .catch(() => undefined)
        .finally(() => (replayed.writing = undefined));
    }
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
      this.recorded(prepared.entries);
    } catch (error) {
      this.owed = events;
      return `could not yet record the renewals of the ${events.length} leases held across the restart (${causeText(error)}); they go first in the next write`;
    }
    return undefined;
  }

  /**
   * A failed write keeps memory as it was for every resource the batch changed
   * durably; the others (a refusal, a status, a queue that moved) are answered.
   */
  async commit(work: readonly Work[]): Promise<Array<PromiseSettledResult<Decision>>> {
    const now = this.now();
    const { decisions, states, durable } = decideBatch(
      work,
      (resource) => this.table.get(resource),
      (resource) => this.table.context(resource, now),
    );
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
        this.recorded(prepared.entries);
      } catch (error) {
        const message = error instanceof StoreError ? error.message : String(error);
        failure = new StoreUnavailableError(`the kernel's store cannot write: ${message}`);
      }
    }
    for (const [resource, state] of states) {
      if (!failure || !durable.has(resource)) this.table.put(state);
    }
    return decisions.map((value) =>
      failure && durable.has(value.state.resource)
        ? { status: 'rejected', reason: failure }
        : { status: 'fulfilled', value },
    );
  }

  due(limit: number): Promise<string[]> {
    const now = this.now();
    return Promise.resolve(
      [...this.deadlines()]
        .filter((d) => d.at <= now)
        .sort((a, b) => a.at - b.at)
        .slice(0, limit)
        .map((d) => d.resource),
    );
  }

  *deadlines(): Iterable<{ resource: string; at: number }> {
    for (const state of this.table.values()) {
      const at = nextDeadline(state);
      if (at !== undefined) yield { resource: state.resource, at };
    }
  }

  overview(): Promise<Overview> {
    return Promise.resolve(overviewOf(this.table.values(), this.now()));
  }

  /** Only `announceFreed`'s notices: the service tells the commits of one process itself. */
  watch(listener: (notice: ChangeNotice) => void): void {
    this.heard = listener;
  }

  /** One process: every change is made here, so there is no one else to hear. */
  async listen(): Promise<void> {}

  /** One process: its own held requests are the only ones to wake. */
  announceFreed(resource: string): Promise<void> {
    this.heard?.({ resource, events: [], freed: true });
    return Promise.resolve();
  }

  /** One process: the ledger is written here, so it is never behind. */
  async syncLedger(): Promise<void> {}

  /** Throws a StoreError when the store cannot take a write now. */
  ready(): Promise<void> {
    return this.store.probe();
  }

  async close(): Promise<void> {
    this.closed = true;
    const replayed = this.replayed;
    if (replayed) {
      // A clean stop leaves a snapshot of everything, so the next start replays nothing.
      await replayed.writing;
      if (replayed.since > 0) await this.snapshot().catch(() => undefined);
    }
    await this.store.close();
    replayed?.lines.close();
  }
}
