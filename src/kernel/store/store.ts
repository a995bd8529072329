import type { KernelStore } from './kernel-store.js';
import { StoreError } from './store-error.js';

export { StoreError };
export { fileStore, type FileStoreOptions } from './file-store.js';
export type {
  KernelStore,
  LogFileStore,
  LogPoint,
  RecoveredLog,
  SnapshotFile,
} from './kernel-store.js';
export { isLogFileStore } from './kernel-store.js';

/**
 * Nothing outlives the process; appends always succeed. `fenceFloor`: the
 * first grant's fence is above it (the CLI's memory kernel gives the clock's,
 * memoryFenceFloor, so fences rise across its restarts too).
 */
export function memoryStore(options: { fenceFloor?: number } = {}): KernelStore {
  const fenceFloor = options.fenceFloor ?? 0;
  return {
    describe: 'memory',
    open: () => Promise.resolve({ lines: [], fenceFloor }),
    append: () => Promise.resolve(),
    probe: () => Promise.resolve(),
    close: () => Promise.resolve(),
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
