import type { LedgerEntry } from '../../ledger/entry.js';

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

export const isLogFileStore = (store: KernelStore): store is LogFileStore =>
  'openFrom' in store && 'readSnapshot' in store;
