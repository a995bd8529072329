import { InternalError } from '../../errors.js';
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FileLines } from '../../ledger/file-lines.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { LedgerEntry } from '../../ledger/entry.js';
import { deploySchema } from '../../plane/deploy.js';
import type { Backend, Opened } from './backend.js';
import { ResourceTable } from '../rules/core.js';
import { overviewOf, type Overview } from '../rules/overview.js';
import { logTimeAfter, resumeLeases, type LogTime } from './restart.js';
import { afterRestart, replay } from '../rules/replay.js';
import {
  nextDeadline,
  type Decision,
  type KernelEvent,
  type ResourceState,
} from '../rules/rules.js';
import {
  checkSignedHistory,
  readSignedRecord,
  signedRecordPath,
  writeSignedRecord,
} from './signed-record.js';
import { readSnapshotState } from './snapshot.js';
import { StartRefusedError, StoreError, StoreUnavailableError } from './store-error.js';
import { isLogFileStore, type KernelStore, type LogFileStore, type LogPoint } from './store.js';
import { decideBatch, type Work } from '../rules/work.js';

export interface LocalBackendOptions {
  table: ResourceTable;
  store: KernelStore;
  ledger: Ledger;
  /** Epoch-aligned monotonic milliseconds. */
  now: () => number;
  /** Where a start's notices go (a signed record written from the log as it is). */
  log?: ((line: string) => void) | undefined;
}

/** Resource states serialised between two yields while a snapshot is taken. */
const STATES_PER_TURN = 1_000;

/** Entries between two snapshots of a file kernel: a restart replays at most about this many. */
const SNAPSHOT_EVERY = 16_384;

/**
 * A file kernel's view of its log alone, kept beside the live table for its
 * snapshots: the states as replaying the log makes them, its highest fence
 * and the time it ends with.
 */
interface Replayed {
  store: LogFileStore;
  lines: FileLines;
  table: ResourceTable;
  time: LogTime | undefined;
  /** Entries since the last snapshot was taken. */
  since: number;
  writing: Promise<void> | undefined;
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
  private replayed: Replayed | undefined;
  /** A snapshot read at start but not used: its size and root, checked against the log read whole. */
  private snapshotTaken: { size: number; root?: string } | undefined;
  private sequenced: ((entries: readonly LedgerEntry[]) => void) | undefined;

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
      recovered = await this.openFile(this.store);
      try {
        await this.holdToSigned(this.store);
      } catch (error) {
        // Refused before anything was served: nothing of this start stays open.
        await this.store.close();
        this.replayed?.lines.close();
        throw error;
      }
      time = this.replayed!.time;
      // Copies: the rules may change a state's arrays in place, and the view must not follow.
      for (const state of this.replayed!.table.values()) table.put(structuredClone(state));
      table.fence = Math.max(table.fence, this.replayed!.table.fence);
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
          `warning: ${signedRecordPath(store.path)} is missing and could not be written now (${error instanceof Error ? error.message : String(error)}); it is written before the next checkpoint goes out`,
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

  /**
   * A file kernel's start: the ledger reads its lines back from the log; a
   * snapshot the log confirms stands for the part of the log it covers, and
   * only the lines after it are replayed. A snapshot whose last entry the log
   * no longer holds where it says refuses the start (the log was cut short or
   * rewritten; a crash between an append and a snapshot leaves the snapshot
   * behind the log, never ahead of it). Any other snapshot is ignored with a
   * note and the whole log replayed: the log is the one truth.
   */
  private async openFile(store: LogFileStore) {
    const { table: live, ledger } = this;
    const fresh = () => ({
      store,
      lines: new FileLines(store.path),
      table: new ResourceTable({ ttlMs: live.ttlMs, lockDelayMs: live.lockDelayMs }),
      time: undefined,
      since: 0,
      writing: undefined,
    });
    let replayed: Replayed = fresh();
    let start: LogPoint | undefined;
    let note: string | undefined;
    const found = store.readSnapshot();
    if ('disagrees' in found) {
      // Refused once the log is read whole: a signed record, if any, says what changed first.
      this.snapshotTaken = { size: found.disagrees.size };
    } else if ('snapshot' in found) {
      const { snapshot } = found;
      const state = readSnapshotState(snapshot.state);
      try {
        if (!state || state.ledger.size !== snapshot.size)
          throw new Error('it is not a snapshot of this kernel');
        if (state.ttlMs !== live.ttlMs || state.lockDelayMs !== live.lockDelayMs)
          throw new Error('it was taken with another lease lifetime or lock-delay');
        if (state.end !== snapshot.lastOffset + snapshot.lastBytes + 1)
          throw new Error('its index does not end at its last entry');
        replayed.lines.restore(state.ledger.size, state.runStarts, state.end);
        ledger.restoreFrom(replayed.lines, state.ledger);
        for (const resource of state.states) replayed.table.put(resource);
        replayed.table.fence = state.fence;
        replayed.time = state.time;
        start = { index: snapshot.size, offset: state.end, lastBytes: snapshot.lastBytes };
      } catch (error) {
        replayed.lines.close();
        replayed = fresh();
        note = (error as Error).message;
        // Not used, but the log's root at its size is still checked once the log is read.
        if (state) this.snapshotTaken = { size: state.ledger.size, root: state.ledger.root };
      }
    } else {
      note = found.ignored;
    }
    if (!start) ledger.readFrom(replayed.lines);
    const { table } = replayed;
    let index = start?.index ?? 0;
    const recovered = await store.openFrom((line) => {
      index += 1;
      const entry = ledger.load(line, `${store.describe} line ${index}`);
      table.put(replay(table.get(entry.resource), toEvent(entry), table.ttlMs, table.lockDelayMs));
      table.fence = Math.max(table.fence, entry.fence);
      replayed.time = logTimeAfter(replayed.time, entry.tsMs);
      replayed.since += 1;
    }, start);
    this.replayed = replayed;
    const ignored =
      note && `${store.path}.snapshot.json was ignored: ${note}; the whole log was read`;
    const warning = [recovered.warning, ignored].filter(Boolean).join('; ');
    return { fenceFloor: recovered.fenceFloor, ...(warning ? { warning } : {}) };
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
   * Writes the snapshot of what is durable now. Taken at once (between two
   * batches: the ledger, its index and the view all stand at the same entry),
   * then written.
   */
  private async snapshot(): Promise<void> {
    const replayed = this.replayed;
    const size = this.ledger.size;
    if (!replayed || size === 0 || !replayed.time) return;
    const { lines, table } = replayed;
    const last = Buffer.from(lines.at(size - 1), 'utf8');
    replayed.since = 0;
    const snapshot = {
      size,
      lastOffset: lines.end - last.length - 1,
      lastBytes: last.length,
      lastSha256: createHash('sha256').update(last).digest('hex'),
      state: {
        version: 1,
        ledger: this.ledger.snapshot(),
        runStarts: lines.runStarts(),
        end: lines.end,
        fence: table.fence,
        time: replayed.time,
        ttlMs: table.ttlMs,
        lockDelayMs: table.lockDelayMs,
        states: [] as ResourceState[],
      },
    };
    // The states are taken now (each is replaced, never changed, as entries are replayed) and
    // serialised a slice a turn: many resources make megabytes of JSON. The pieces are the
    // snapshot's JSON exactly: `states` is the last member of `state`, `state` of the snapshot.
    const states = [...table.values()];
    const whole = JSON.stringify(snapshot);
    const tail = '[]}}';
    if (!whole.endsWith(`"states":${tail}`))
      throw new InternalError('the snapshot is not laid out as it is read');
    const body = [whole.slice(0, -tail.length), '['];
    for (let i = 0; i < states.length; i += STATES_PER_TURN) {
      if (i > 0) {
        await nextTurn();
        body.push(',');
      }
      body.push(
        states
          .slice(i, i + STATES_PER_TURN)
          .map((state) => JSON.stringify(state))
          .join(','),
      );
    }
    body.push(']}}');
    await replayed.store.writeSnapshot(body);
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

/** The log is not the one its snapshot was taken of: the start is refused, saying how to recover. */
function snapshotDisagrees(logPath: string, size: number): StartRefusedError {
  return new StartRefusedError(
    `Refusing to start: ${logPath}.snapshot.json was taken of ${size} ${size === 1 ? 'entry' : 'entries'} of ${logPath}, and the log no longer holds them: it was cut short or rewritten since. Put back the log it was taken of (from a backup); to keep this log on purpose (an older backup restored), move ${logPath}.snapshot.json aside (checkpoints signed over the entries lost no longer verify).`,
  );
}

export function toEvent(entry: LedgerEntry): KernelEvent {
  const { kind, tsMs, resource, actorDid, leaseId, fence, expiresAtMs, reason } = entry;
  const event: KernelEvent = { kind, atMs: tsMs, resource, actorDid, leaseId, fence };
  if (expiresAtMs !== undefined) event.expiresAtMs = expiresAtMs;
  if (reason !== undefined) event.reason = reason;
  if (entry.by !== undefined) event.by = entry.by;
  if (entry.approvedBy !== undefined) event.approvedBy = entry.approvedBy;
  if (entry.approval !== undefined) event.approval = entry.approval;
  if (entry.promotedVia !== undefined) event.promotedVia = entry.promotedVia;
  const deploy = entry.deploy && deploySchema.safeParse(entry.deploy);
  if (deploy?.success) event.deploy = deploy.data;
  return event;
}
