import { existsSync, openSync, closeSync, readFileSync, ftruncateSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import type { LedgerEntry } from '../ledger/entry.js';
import { StoreError } from './store-error.js';

export { StoreError };

/**
 * Where the kernel's one durable record lives: an append-only log of ledger
 * lines. State after a restart is the replay of what `open` returns.
 */
export interface KernelStore {
  readonly describe: string;
  /** The durable lines in order, read once at start. */
  open(): Promise<RecoveredLog>;
  /**
   * Makes these lines durable (one write, one sync) or throws a StoreError,
   * leaving nothing of them behind. The entries are the same lines, parsed.
   */
  append(text: string, entries: readonly LedgerEntry[]): Promise<void>;
  /** Resolves when the store can take a write now; throws a StoreError otherwise. */
  probe(): Promise<void>;
  close(): Promise<void>;
  /**
   * A store shared by replicas calls `changed` when another replica frees a
   * resource (release, lapse, revoke), so requests held here wake at once.
   */
  watch?(changed: (resource: string) => void): void;
}

export interface RecoveredLog {
  lines: string[];
  /** The lowest fence the next grant may not go below (an older release's state file). */
  fenceFloor: number;
  /** Said once at start: a torn last record that was cut off. */
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
  fence: z.number().int().nonnegative(),
});

/**
 * A file of canonical JSON lines, appended and fdatasync'ed per batch. A failed
 * write is cut back to the last durable byte before the error is reported, and
 * retried on the next batch, so the file never holds half a batch that memory
 * does not. `legacyState` is an older release's state file, read only for its fence.
 */
export function fileStore(path: string, legacyState?: string): KernelStore {
  let handle: FileHandle | undefined;
  let durableBytes = 0;
  let dirty = false;

  const repair = async () => {
    if (!dirty || !handle) return;
    try {
      await handle.truncate(durableBytes);
      await handle.datasync();
      dirty = false;
    } catch (error) {
      throw new StoreError(`cannot repair ${path}: ${(error as Error).message}`);
    }
  };

  return {
    describe: path,
    async open() {
      const logExists = existsSync(path);
      const fenceFloor = legacyState ? readLegacyFence(legacyState, logExists, path) : 0;
      let text = '';
      if (logExists) {
        try {
          text = readFileSync(path, 'utf8');
        } catch (error) {
          throw new StoreError(`Cannot read the kernel's log ${path}: ${(error as Error).message}`);
        }
      }
      const lines = text.split('\n');
      const tail = lines.pop() ?? '';
      durableBytes = Buffer.byteLength(text) - Buffer.byteLength(tail);
      let warning: string | undefined;
      if (tail) {
        const fd = openSync(path, 'r+');
        ftruncateSync(fd, durableBytes);
        closeSync(fd);
        warning = `${path}: the last record was torn (${Buffer.byteLength(tail)} bytes without an end); it was cut off and the ${lines.length} records before it kept`;
      }
      try {
        handle = await open(path, 'a', 0o600);
      } catch (error) {
        throw new StoreError(`Cannot open the kernel's log ${path}: ${(error as Error).message}`);
      }
      return { lines, fenceFloor, ...(warning ? { warning } : {}) };
    },
    async append(text) {
      if (!handle) throw new StoreError(`${path} is not open`);
      await repair();
      const bytes = Buffer.from(text, 'utf8');
      try {
        dirty = true;
        await handle.write(bytes, 0, bytes.length, null);
        await handle.datasync();
        durableBytes += bytes.length;
        dirty = false;
      } catch (error) {
        await repair().catch(() => undefined);
        throw new StoreError(`cannot write ${path}: ${(error as Error).message}`);
      }
    },
    async probe() {
      if (!handle) throw new StoreError(`${path} is not open`);
      await repair();
      try {
        await handle.datasync();
      } catch (error) {
        throw new StoreError(`cannot sync ${path}: ${(error as Error).message}`);
      }
    },
    async close() {
      await handle?.close();
      handle = undefined;
    },
  };
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
