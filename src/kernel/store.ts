import { readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { readEntry, type LedgerEntry } from '../ledger/entry.js';
import { nodeLogFs, type LogFile, type LogFs } from './log-file.js';
import { StoreError } from './store-error.js';

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
  /** The lowest fence the next grant may not go below (an older release's state file). */
  fenceFloor: number;
  /** Said once at start: a torn last record that was saved and cut off, or one kept without its newline. */
  warning?: string;
}

/** Nothing outlives the process; appends always succeed. */
export function memoryStore(): KernelStore {
  return {
    describe: 'memory',
    open: async () => ({ lines: [], fenceFloor: 0 }),
    append: async () => undefined,
    probe: async () => undefined,
    close: async () => undefined,
  };
}

const legacyStateSchema = z.object({
  version: z.literal(1),
  fence: z.number().check(z.int(), z.nonnegative()),
});

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
 * half a batch that memory does not. `legacyState` is an older release's state
 * file, read only for its fence.
 */
export function fileStore(
  path: string,
  legacyState?: string,
  options: FileStoreOptions = {},
): KernelStore {
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

  return {
    describe: path,
    async open() {
      let bytes: Buffer | undefined;
      try {
        bytes = fs.read(path);
      } catch (error) {
        throw new StoreError(`Cannot read the kernel's log ${path}: ${(error as Error).message}`);
      }
      let fenceFloor = legacyState ? readLegacyFence(legacyState, bytes !== undefined, path) : 0;
      const log = bytes ?? Buffer.alloc(0);
      const end = log.lastIndexOf(0x0a) + 1;
      const lines = end > 0 ? log.toString('utf8', 0, end - 1).split('\n') : [];
      const tail = log.subarray(end);
      durableBytes = end;
      let warning: string | undefined;
      if (tail.length > 0) {
        const text = tail.toString('utf8');
        if (readEntry(text, lines.length)) {
          // Whole and valid but for its newline: it may have been acknowledged, so it stays.
          lines.push(text);
          durableBytes = log.length;
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
          warning = `${path}: the last record was torn (${tail.length} bytes without an end); it was saved to ${copy}, cut off, and the ${lines.length} records before it kept`;
        }
      }
      try {
        file = await fs.openLog(path);
      } catch (error) {
        throw new StoreError(`Cannot open the kernel's log ${path}: ${(error as Error).message}`);
      }
      await repair();
      return { lines, fenceFloor, ...(warning ? { warning } : {}) };
    },
    async append(text) {
      if (!file) throw new StoreError(`${path} is not open`);
      await repair();
      const bytes = Buffer.from(newlineOwed ? `\n${text}` : text, 'utf8');
      let written = 0;
      try {
        dirty = true;
        // A write may take fewer bytes than asked (a full disk): go on from there, or fail.
        while (written < bytes.length) {
          const n = await file.write(
            bytes,
            written,
            bytes.length - written,
            durableBytes + written,
          );
          if (!(n > 0)) throw new Error(`a write took ${written} of ${bytes.length} bytes`);
          written += n;
        }
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

/** An older release's state file: its fence is a floor; without the log beside it, refuse. */
function readLegacyFence(file: string, logExists: boolean, logPath: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new StoreError(`Cannot read the state file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new StoreError(
      `The state file ${file} is not valid JSON; refusing to start rather than forget its fences. Move it away to start afresh.`,
    );
  }
  const result = legacyStateSchema.safeParse(parsed);
  if (!result.success) {
    throw new StoreError(
      `The state file ${file} is not a lease-gate kernel state; refusing to start rather than forget its fences.`,
    );
  }
  if (!logExists) {
    throw new StoreError(
      `The state file ${file} exists but the kernel's log ${logPath} is missing: the log is the kernel's only record. Put the log back, or move both away to start a new plane (its fences start at 1 again).`,
    );
  }
  return result.data.fence;
}
