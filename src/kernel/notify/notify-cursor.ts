import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { writeFileDurableSync } from '../../fs/durable.js';
import type { LedgerEntry } from '../../ledger/entry.js';
import { isNotified, notificationId } from './notification.js';

/**
 * Where a file kernel's notifications stand, per URL, so that a restart (kill -9 included)
 * sends what was committed and not yet delivered: `PREFIX.ledger.jsonl.notify.json`, beside
 * the log and its snapshot. For each URL (named by a hash of it: a chat webhook's URL is its
 * credential) it keeps `next`, the ledger index after the last notification whose delivery
 * ended (answered 2xx, or given up: counted, logged and shown in `/readyz`), and `id`, the
 * notification id of the entry just before `next`, which ties the cursor to this ledger.
 *
 * The worker thread that sends writes it (atomically) after each delivery ends; the kernel's
 * thread reads it once at start, with the ledger, and hands the worker what it still owes
 * (`planResume`). Deliveries are at least once: a delivery answered just before a kill is
 * sent again, with the same notification ids. A memory kernel keeps no ledger across a
 * restart, so it has nothing to resume; PostgreSQL replicas keep no cursor (docs/kernel.md).
 */

export interface CursorPoint {
  /** The first ledger index not yet done for this URL. */
  next: number;
  /** notificationId of entry `next - 1` (absent when `next` is 0). */
  id?: string | undefined;
}

/** By URL, as the notifier was given them. */
export type Cursors = Record<string, CursorPoint>;

/** What is replayed after a restart, at most: the newest of what is owed. */
export interface ResumeBounds {
  /** Notifications (not ledger entries) per start. */
  maxEntries: number;
  /** Of entries stamped no earlier than this long before now. */
  maxAgeMs: number;
}

export const RESUME_BOUNDS: ResumeBounds = { maxEntries: 10_000, maxAgeMs: 24 * 3_600_000 };

/** Entries read from the ledger between two yields to the kernel's other work. */
const SCAN_SLICE = 2_000;

/** The cursor file of a log file. */
export const cursorFileOf = (logFile: string) => `${logFile}.notify.json`;

/** A URL as the file names it: a hash, never the URL (a webhook's path is its secret). */
export const urlKey = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);

/** The file's text for these URLs' points (URLs no longer notified are left out). */
export function cursorText(cursors: Cursors): string {
  const targets: Record<string, CursorPoint> = {};
  for (const [url, point] of Object.entries(cursors)) targets[urlKey(url)] = point;
  return `${JSON.stringify({ version: 1, targets })}\n`;
}

export function writeCursors(file: string, cursors: Cursors): void {
  writeFileDurableSync(file, cursorText(cursors));
}

type Stored = { points: Record<string, CursorPoint> } | { missing: true } | { invalid: string };

/** The file as found: its points by URL key, or none (first start), or why it is unusable. */
export function readCursorFile(file: string): Stored {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { missing: true };
    return { invalid: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { invalid: 'it is not JSON' };
  }
  const form = raw as { version?: unknown; targets?: unknown } | null;
  if (
    typeof form !== 'object' ||
    form === null ||
    form.version !== 1 ||
    typeof form.targets !== 'object' ||
    form.targets === null
  )
    return { invalid: 'it is not {"version": 1, "targets": {...}}' };
  const points: Record<string, CursorPoint> = {};
  for (const [key, value] of Object.entries(form.targets as Record<string, unknown>)) {
    const point = value as { next?: unknown; id?: unknown } | null;
    if (
      typeof point !== 'object' ||
      point === null ||
      !Number.isSafeInteger(point.next) ||
      (point.next as number) < 0 ||
      (point.id !== undefined && (typeof point.id !== 'string' || point.id.length > 64))
    )
      return { invalid: `its entry ${key.slice(0, 40)} is not {"next": N, "id": "…"}` };
    points[key] = { next: point.next as number, id: point.id };
  }
  return { points };
}

/** What the ledger tells of itself: its size and its entries, read on the kernel's thread. */
export interface LedgerView {
  readonly size: number;
  entry(index: number): LedgerEntry | undefined;
}

export interface ResumePlan {
  /** Where each URL starts: the worker sends it nothing before. */
  cursors: Cursors;
  /** What is owed to at least one URL, in the ledger's order (notified kinds only). */
  entries: LedgerEntry[];
  /** What to tell the operator: what is sent again, what is skipped, a cursor not used. */
  notes: string[];
}

/**
 * From the cursor file and the ledger: for each URL where it starts, and the entries it is
 * still owed. A URL with no cursor (first start with it) or one that does not match this
 * ledger (another log under the same name) starts at the ledger's end, saying so for the
 * second. What is owed is read back from the ledger's end, newest first, at most
 * `bounds.maxEntries` notifications and none stamped more than `bounds.maxAgeMs` before
 * `nowMs`: what lies beyond is skipped and named (the ledger export still has it).
 */
export async function planResume(
  ledger: LedgerView,
  urls: readonly string[],
  file: string,
  nowMs: number,
  bounds: ResumeBounds = RESUME_BOUNDS,
): Promise<ResumePlan> {
  const size = ledger.size;
  const notes: string[] = [];
  const stored = readCursorFile(file);
  if ('invalid' in stored)
    notes.push(
      `the notification cursor ${file} was not used: ${stored.invalid}; notifications start at ledger entry ${size}`,
    );
  const atEnd = (): CursorPoint => ({ next: size, id: idAt(ledger, size - 1) });
  const cursors: Cursors = {};
  for (const url of urls) {
    const point = 'points' in stored ? stored.points[urlKey(url)] : undefined;
    if (!point) {
      cursors[url] = atEnd();
    } else if (point.next > size || (point.next > 0 && idAt(ledger, point.next - 1) !== point.id)) {
      notes.push(
        `the notification cursor of ${origin(url)} (ledger entry ${point.next}) does not match this ledger; its notifications start at entry ${size}`,
      );
      cursors[url] = atEnd();
    } else {
      cursors[url] = point;
    }
  }
  const low = Math.min(size, ...Object.values(cursors).map((c) => c.next));
  // Newest first, down to the lowest cursor, within the bounds.
  const owed: LedgerEntry[] = [];
  const oldest = nowMs - bounds.maxAgeMs;
  let floor = size;
  for (let i = size - 1; i >= low; i -= 1) {
    if ((size - 1 - i) % SCAN_SLICE === SCAN_SLICE - 1) await nextTurn();
    const entry = ledger.entry(i);
    if (!entry || entry.tsMs < oldest) break;
    if (isNotified(entry)) {
      if (owed.length === bounds.maxEntries) break;
      owed.push(entry);
    }
    floor = i;
  }
  owed.reverse();
  for (const url of urls) {
    const point = cursors[url]!;
    if (point.next < floor) {
      notes.push(
        `notifications to ${origin(url)} of ledger entries ${point.next} to ${floor - 1} are not sent: more than ${bounds.maxEntries} notifications or ${Math.round(bounds.maxAgeMs / 3_600_000)} h behind (\`lease-gate ledger export\` has them)`,
      );
      cursors[url] = { next: floor, id: idAt(ledger, floor - 1) };
    }
    const count = owed.filter((e) => e.seq >= cursors[url]!.next).length;
    if (count > 0)
      notes.push(
        `sending ${origin(url)} the ${count} notifications committed before the restart and not yet delivered (from ledger entry ${cursors[url]!.next})`,
      );
  }
  return { cursors, entries: owed, notes };
}

function idAt(ledger: LedgerView, index: number): string | undefined {
  const entry = index >= 0 ? ledger.entry(index) : undefined;
  return entry && notificationId(entry);
}

const origin = (url: string) => new URL(url).origin;
