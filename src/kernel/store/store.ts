import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { writeFileDurable } from '../../fs/durable.js';
import { writeAll } from '../../fs/write-all.js';
import * as z from 'zod/mini';
import { readEntry, type LedgerEntry } from '../../ledger/entry.js';
import { nodeLogFs, type LogFile, type LogFs } from './log-file.js';
import { StoreError } from './store-error.js';
import { causeText } from '../../errors.js';

export { StoreError };

/**
 * Where the in-process backend (local-backend.ts) keeps its one durable
 * record: an append-only log of ledger lines. State after a restart is the
 * replay of what `open` returns. A store shared by replicas is a Backend
 * (backend.ts) instead, as PostgreSQL is.
 */
export interface KernelStore {
  readonly describe: string;
  /** The durable lines in order, read once at start. */
  open(): Promise<RecoveredLog>;
  /**
   * Makes these lines durable (every byte written, then one sync) or throws a
   * StoreError, leaving nothing of them behind. The entries are the same lines, parsed.
   */
  append(text: string, entries: readonly LedgerEntry[]): Promise<void>;
  /** Resolves when the store can take a write now; throws a StoreError otherwise. */
  probe(): Promise<void>;
  close(): Promise<void>;
}

export interface RecoveredLog {
  lines: string[];
  /** The lowest fence the next grant may not go below (the highest in a torn record cut off). */
  fenceFloor: number;
  /** Said once at start: a torn last record that was saved and cut off, or one kept without its newline. */
  warning?: string;
}

/** Pieces of a snapshot hashed or written between two yields to the event loop. */
const SNAPSHOT_PIECES_PER_TURN = 64;

/** What a store over a file adds: the log read from a point, and a snapshot kept beside it. */
export interface LogFileStore extends KernelStore {
  readonly path: string;
  /**
   * Opens the log reading it from `start` (line `index`; the whole log by
   * default), each whole line handed to `onLine` in order and none kept; the
   * torn last record is handled as `open` does.
   */
  openFrom(onLine: (line: string) => void, start?: LogPoint): Promise<Omit<RecoveredLog, 'lines'>>;
  /**
   * The snapshot beside the log when the log still holds, at the offset it
   * names, the very line it names as its last; `disagrees` when it does not
   * (the log was cut short or rewritten since: the kernel refuses to start);
   * otherwise why it is ignored (a damaged snapshot, or none).
   */
  readSnapshot(): { snapshot: SnapshotFile } | { disagrees: SnapshotFile } | { ignored?: string };
  /**
   * Replaces the snapshot whole (a temporary file, synced, renamed over it). `body` is the
   * JSON of a SnapshotFile in pieces (their concatenation), so no one call serialises it all.
   */
  writeSnapshot(body: readonly string[]): Promise<void>;
}

/** A point in the log: just past line `index - 1`'s newline, `offset` bytes in; that line has `lastBytes`. */
export interface LogPoint {
  index: number;
  offset: number;
  lastBytes: number;
}

/** What the store checks of a snapshot against the log; `state` is the backend's. */
export interface SnapshotFile {
  /** Entries the snapshot covers. */
  size: number;
  /** Where its last line starts, its length in bytes, and that line's SHA-256 (hex). */
  lastOffset: number;
  lastBytes: number;
  lastSha256: string;
  state: unknown;
}

const snapshotLogSchema = z.object({
  size: z.number().check(z.int(), z.positive()),
  lastOffset: z.number().check(z.int(), z.nonnegative()),
  lastBytes: z.number().check(z.int(), z.positive()),
  lastSha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  state: z.unknown(),
});

export const isLogFileStore = (store: KernelStore): store is LogFileStore =>
  'openFrom' in store && 'readSnapshot' in store;

/**
 * Nothing outlives the process; appends always succeed. `fenceFloor`: the
 * first grant's fence is above it (the CLI's memory kernel gives the clock's,
 * memoryFenceFloor, so fences rise across its restarts too).
 */
export function memoryStore(options: { fenceFloor?: number } = {}): KernelStore {
  const fenceFloor = options.fenceFloor ?? 0;
  return {
    describe: 'memory',
    open: async () => ({ lines: [], fenceFloor }),
    append: async () => undefined,
    probe: async () => undefined,
    close: async () => undefined,
  };
}

/**
 * Fences a memory kernel can issue per millisecond of wall clock between its
 * start and the next one's. At today's clock the floor is about 1.8 × 10^15,
 * within a safe integer (9 × 10^15) until the year 2255.
 */
const FENCES_PER_MS = 1_000;

/**
 * Where a memory kernel's fences start: the wall clock in microseconds. A
 * memory kernel remembers nothing, so its fences would start at 1 again after
 * each restart; these rise across restarts unless the clock is set back
 * between them, or one run issued more than 1,000 fences per millisecond it ran.
 */
export function memoryFenceFloor(nowMs: number = Date.now()): number {
  return Math.floor(nowMs) * FENCES_PER_MS;
}

/** Bytes read at a time at start. */
const READ_BYTES = 4 * 1024 * 1024;

export interface FileStoreOptions {
  /** The file-system calls; node's by default (tests inject short writes here). */
  fs?: LogFs;
  /** Wall-clock milliseconds, to name the copy of cut bytes. */
  now?: () => number;
}

/**
 * A file of canonical JSON lines, written at the end of what is durable and
 * fdatasync'ed per batch. Only bytes a write reports as written count, and a
 * batch counts only once all of them are written and synced; a short or failed
 * write is cut back to the last durable byte (never past the file's end) before
 * the error is reported, and retried on the next batch, so the file never holds
 * half a batch that memory does not. Beside it, `PATH.snapshot.json` may hold
 * a snapshot that saves a restart the replay of what it covers (local-backend.ts).
 */
export function fileStore(
  path: string,
  given?: FileStoreOptions,
  /** Where the options went while the second place named a state file (before 1.0.0): still read. */
  formerPlace?: FileStoreOptions,
): LogFileStore {
  const options = given ?? formerPlace ?? {};
  const fs = options.fs ?? nodeLogFs;
  const now = options.now ?? Date.now;
  let file: LogFile | undefined;
  /** Bytes of whole records on disk and synced: the only length the file is ever cut to. */
  let durableBytes = 0;
  /** The last record kept at start was whole but had no newline: the next write starts with one. */
  let newlineOwed = false;
  let dirty = false;

  const repair = async () => {
    if (!dirty || !file) return;
    try {
      const size = await file.size();
      if (size < durableBytes) {
        throw new Error(
          `it holds ${size} bytes, fewer than the ${durableBytes} already durable; refusing to extend it`,
        );
      }
      if (size > durableBytes) await file.truncate(durableBytes);
      await file.datasync();
      dirty = false;
    } catch (error) {
      throw new StoreError(`cannot repair ${path}: ${(error as Error).message}`);
    }
  };

  const snapshotPath = `${path}.snapshot.json`;

  const openFrom = async (onLine: (line: string) => void, start?: LogPoint) => {
    let reader;
    try {
      reader = fs.openRead(path);
    } catch (error) {
      throw new StoreError(`Cannot read the kernel's log ${path}: ${(error as Error).message}`);
    }
    let fenceFloor = 0;
    let index = start?.index ?? 0;
    let at = start?.offset ?? 0;
    let tail = Buffer.alloc(0);
    let warning: string | undefined;
    if (start && reader && reader.size === start.offset - 1) {
      // The snapshot's last line is the log's last, now without its newline: kept, as below.
      at -= 1;
      newlineOwed = true;
      warning = `${path}: the last record (${start.lastBytes} bytes) had no newline; it is whole and was kept`;
    } else if (reader) {
      try {
        // Whole lines go out as they are found; only the part after the last newline is carried.
        const block = Buffer.allocUnsafe(READ_BYTES);
        for (let position = at; position < reader.size;) {
          let n: number;
          try {
            n = reader.read(block, position);
          } catch (error) {
            throw new StoreError(
              `Cannot read the kernel's log ${path}: ${(error as Error).message}`,
            );
          }
          if (n <= 0) break;
          position += n;
          const data =
            tail.length > 0 ? Buffer.concat([tail, block.subarray(0, n)]) : block.subarray(0, n);
          let from = 0;
          for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, from)) {
            onLine(data.toString('utf8', from, nl));
            index += 1;
            at += nl - from + 1;
            from = nl + 1;
          }
          tail = Buffer.from(data.subarray(from));
        }
      } finally {
        reader.close();
      }
    }
    durableBytes = at;
    if (tail.length > 0) {
      const text = tail.toString('utf8');
      if (readEntry(text, index)) {
        // Whole and valid but for its newline: it may have been acknowledged, so it stays.
        onLine(text);
        durableBytes += tail.length;
        newlineOwed = true;
        warning = `${path}: the last record (${tail.length} bytes) had no newline; it is whole and was kept`;
      } else {
        const copy = `${path}.cut-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`;
        try {
          await fs.saveCopy(copy, tail);
        } catch (error) {
          throw new StoreError(
            `${path}: the last record is torn (${tail.length} bytes) and cannot be saved to ${copy} before it is cut: ${(error as Error).message}. Free space and start again.`,
          );
        }
        dirty = true;
        fenceFloor = Math.max(fenceFloor, highestFence(text));
        warning = `${path}: the last record was torn (${tail.length} bytes without an end); it was saved to ${copy}, cut off, and the ${index} records before it kept`;
      }
    }
    try {
      file = await fs.openLog(path);
    } catch (error) {
      throw new StoreError(`Cannot open the kernel's log ${path}: ${(error as Error).message}`);
    }
    await repair();
    return { fenceFloor, ...(warning ? { warning } : {}) };
  };

  return {
    describe: path,
    path,
    openFrom,
    async open() {
      const lines: string[] = [];
      const recovered = await openFrom((line) => lines.push(line));
      return { lines, ...recovered };
    },
    readSnapshot() {
      let text: string;
      try {
        text = readSmall(snapshotPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
        return { ignored: `cannot read it (${(error as Error).message})` };
      }
      const newline = text.indexOf('\n');
      const body = text.slice(newline + 1).trimEnd();
      const header = /^\{"sha256":"([0-9a-f]{64})"\}$/.exec(text.slice(0, newline));
      if (newline < 0 || !header || sha256Hex(body) !== header[1])
        return { ignored: 'it is damaged' };
      let parsed;
      try {
        parsed = snapshotLogSchema.safeParse(JSON.parse(body));
      } catch {
        return { ignored: 'it is damaged' };
      }
      if (!parsed.success) return { ignored: 'it is not a snapshot of this kernel' };
      const snapshot = parsed.data;
      const last = readAt(path, snapshot.lastOffset, snapshot.lastBytes + 1);
      const line = last?.subarray(0, snapshot.lastBytes);
      const before =
        snapshot.lastOffset === 0 ? 0x0a : readAt(path, snapshot.lastOffset - 1, 1)?.[0];
      if (
        !last ||
        line!.length !== snapshot.lastBytes ||
        (last.length > snapshot.lastBytes && last[snapshot.lastBytes] !== 0x0a) ||
        before !== 0x0a ||
        sha256Hex(line!) !== snapshot.lastSha256
      ) {
        // The log only grows past what a snapshot covers: one that lost or changed that entry is another history.
        return { disagrees: snapshot };
      }
      return { snapshot };
    },
    async writeSnapshot(body) {
      // Hashed and written a piece at a time, yielding between pieces: a snapshot of many
      // resources is megabytes, and the answers go on meanwhile.
      const hash = createHash('sha256');
      for (let i = 0; i < body.length; i += 1) {
        if (i > 0 && i % SNAPSHOT_PIECES_PER_TURN === 0) await nextTurn();
        hash.update(body[i]!, 'utf8');
      }
      const header = `{"sha256":"${hash.digest('hex')}"}\n`;
      try {
        // A half-written copy (a full disk) is removed: it must not hold the space the log's appends need.
        await writeFileDurable(
          snapshotPath,
          async (write) => {
            await write(header);
            for (let i = 0; i < body.length; i += SNAPSHOT_PIECES_PER_TURN) {
              await write(body.slice(i, i + SNAPSHOT_PIECES_PER_TURN).join(''));
            }
            await write('\n');
          },
          { temp: `${snapshotPath}.tmp` },
        );
      } catch (error) {
        throw new StoreError(`cannot write the snapshot ${snapshotPath}: ${causeText(error)}`, {
          cause: error,
        });
      }
    },
    async append(text) {
      if (!file) throw new StoreError(`${path} is not open`);
      await repair();
      const bytes = Buffer.from(newlineOwed ? `\n${text}` : text, 'utf8');
      const log = file;
      try {
        dirty = true;
        // Only bytes a write reports count: a short one (a full disk) goes on from there, or fails.
        await writeAll((b, o, l) => log.write(b, o, l, durableBytes + o), bytes, durableBytes);
        await file.datasync();
      } catch (error) {
        await repair().catch(() => undefined);
        throw new StoreError(`cannot write ${path}: ${(error as Error).message}`);
      }
      durableBytes += bytes.length;
      newlineOwed = false;
      dirty = false;
    },
    async probe() {
      if (!file) throw new StoreError(`${path} is not open`);
      await repair();
      try {
        await file.datasync();
      } catch (error) {
        throw new StoreError(`cannot sync ${path}: ${(error as Error).message}`);
      }
    },
    async close() {
      await file?.close();
      file = undefined;
    },
  };
}

/** The highest fence named in bytes that are cut: a fence seen anywhere is never issued again. */
function highestFence(text: string): number {
  let highest = 0;
  for (const match of text.matchAll(/"fence":(\d{1,15})/g))
    highest = Math.max(highest, Number(match[1]));
  return highest;
}

const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** A whole small file (the snapshot), as UTF-8. */
function readSmall(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    for (let position = 0; ;) {
      const chunk = Buffer.allocUnsafe(1024 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n <= 0) break;
      chunks.push(chunk.subarray(0, n));
      position += n;
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Up to `length` bytes of `file` at `position` (fewer at its end), or undefined when it is missing. */
function readAt(file: string, position: number, length: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const bytes = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, bytes, got, length - got, position + got);
      if (n <= 0) break;
      got += n;
    }
    return bytes.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
