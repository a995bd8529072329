import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { causeText, InternalError } from '../../errors.js';
import { FileLines } from '../../ledger/file-lines.js';
import type { Ledger } from '../../ledger/ledger.js';
import { ResourceTable } from '../rules/core.js';
import { replay, type ResourceState } from '../rules/rules.js';
import { toEvent } from './entry-event.js';
import type { LogFileStore, LogPoint, SnapshotFile } from './kernel-store.js';
import { logTimeAfter, type LogTime } from './restart.js';
import { readSnapshotState } from './snapshot.js';
import { StartRefusedError } from './store-error.js';

/** Resource states serialised between two yields while a snapshot is taken. */
const STATES_PER_TURN = 1_000;

/**
 * A file kernel's view of its log alone, kept beside the live table for its
 * snapshots: the states as replaying the log makes them, its highest fence
 * and the time it ends with.
 */
export interface Replayed {
  store: LogFileStore;
  lines: FileLines;
  table: ResourceTable;
  time: LogTime | undefined;
  /** Entries since the last snapshot was taken. */
  since: number;
  writing: Promise<void> | undefined;
}

/** A snapshot read at start but not used: its size and root, checked against the log read whole. */
export interface SnapshotTaken {
  size: number;
  root?: string;
}

/** What a file kernel's start read: its view, and what the backend checks and says of it. */
export interface OpenedLog {
  replayed: Replayed;
  fenceFloor: number;
  warning?: string;
  snapshotTaken?: SnapshotTaken | undefined;
}

/**
 * A file kernel's start: the ledger reads its lines back from the log; a
 * snapshot the log confirms stands for the part of the log it covers, and
 * only the lines after it are replayed. A snapshot whose last entry the log
 * no longer holds where it says refuses the start (the log was cut short or
 * rewritten; a crash between an append and a snapshot leaves the snapshot
 * behind the log, never ahead of it): it is returned as `snapshotTaken`, and
 * refused once the log is read whole. Any other snapshot is ignored with a
 * note and the whole log replayed: the log is the one truth.
 */
export async function openLogView(
  store: LogFileStore,
  live: ResourceTable,
  ledger: Ledger,
): Promise<OpenedLog> {
  const fresh = (): Replayed => ({
    store,
    lines: new FileLines(store.path),
    table: new ResourceTable({ ttlMs: live.ttlMs, lockDelayMs: live.lockDelayMs }),
    time: undefined,
    since: 0,
    writing: undefined,
  });
  let replayed = fresh();
  let start: LogPoint | undefined;
  let note: string | undefined;
  let snapshotTaken: SnapshotTaken | undefined;
  const found = store.readSnapshot();
  if ('disagrees' in found) {
    // Refused once the log is read whole: a signed record, if any, says what changed first.
    snapshotTaken = { size: found.disagrees.size };
  } else if ('snapshot' in found) {
    const used = restoreSnapshot(found.snapshot, replayed, live, ledger);
    if ('start' in used) {
      start = used.start;
    } else {
      replayed.lines.close();
      replayed = fresh();
      ({ note, snapshotTaken } = used);
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
  const ignored =
    note && `${store.path}.snapshot.json was ignored: ${note}; the whole log was read`;
  const warning = [recovered.warning, ignored].filter(Boolean).join('; ');
  return {
    replayed,
    fenceFloor: recovered.fenceFloor,
    snapshotTaken,
    ...(warning ? { warning } : {}),
  };
}

/**
 * Restores the ledger and the view from a snapshot the log confirms, and says where the
 * log's replay starts; or why it is not used (the log's root at its size is still checked
 * once the log is read, so its size and root are returned).
 */
function restoreSnapshot(
  snapshot: SnapshotFile,
  replayed: Replayed,
  live: ResourceTable,
  ledger: Ledger,
): { start: LogPoint } | { note: string; snapshotTaken: SnapshotTaken | undefined } {
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
    return { start: { index: snapshot.size, offset: state.end, lastBytes: snapshot.lastBytes } };
  } catch (error) {
    const taken = state && { size: state.ledger.size, root: state.ledger.root };
    return { note: causeText(error), snapshotTaken: taken };
  }
}

/**
 * The snapshot of what is durable now, as the pieces of its JSON, or undefined when there is
 * nothing to snapshot. Taken at once (between two batches: the ledger, its index and the
 * view all stand at the same entry); the states are then serialised a slice a turn.
 */
export async function snapshotPieces(
  replayed: Replayed,
  ledger: Ledger,
): Promise<string[] | undefined> {
  const size = ledger.size;
  if (size === 0 || !replayed.time) return undefined;
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
      ledger: ledger.snapshot(),
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
  return body;
}

/** The log is not the one its snapshot was taken of: the start is refused, saying how to recover. */
export function snapshotDisagrees(logPath: string, size: number): StartRefusedError {
  return new StartRefusedError(
    `Refusing to start: ${logPath}.snapshot.json was taken of ${size} ${size === 1 ? 'entry' : 'entries'} of ${logPath}, and the log no longer holds them: it was cut short or rewritten since. Put back the log it was taken of (from a backup); to keep this log on purpose (an older backup restored), move ${logPath}.snapshot.json aside (checkpoints signed over the entries lost no longer verify).`,
  );
}
