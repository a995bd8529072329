import { readEntry } from '../../ledger/entry.js';
import { writeAll } from '../../fs/write-all.js';
import type { LogFileStore, LogPoint, RecoveredLog } from './kernel-store.js';
import { nodeLogFs, type LogFile, type LogFs, type LogReader } from './log-file.js';
import { readSnapshotFile, writeSnapshotFile } from './snapshot-file.js';
import { StoreError } from './store-error.js';
import { causeText } from '../../errors.js';

/** Bytes read at a time at start. */
const READ_BYTES = 4 * 1024 * 1024;

export interface FileStoreOptions {
  /** The file-system calls; node's by default (tests inject short writes here). */
  fs?: LogFs;
  /** Wall-clock milliseconds, to name the copy of cut bytes. */
  now?: () => number;
}

/** Where a read of the log stopped: the lines handed out, the byte after the last one's newline, the bytes after it. */
interface ReadTo {
  index: number;
  at: number;
  tail: Buffer;
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
  return new FileStore(path, given ?? formerPlace ?? {});
}

class FileStore implements LogFileStore {
  readonly describe: string;
  private readonly fs: LogFs;
  private readonly now: () => number;
  private readonly snapshotPath: string;
  private file: LogFile | undefined;
  /** Bytes of whole records on disk and synced: the only length the file is ever cut to. */
  private durableBytes = 0;
  /** The last record kept at start was whole but had no newline: the next write starts with one. */
  private newlineOwed = false;
  private dirty = false;

  constructor(
    readonly path: string,
    options: FileStoreOptions,
  ) {
    this.describe = path;
    this.fs = options.fs ?? nodeLogFs;
    this.now = options.now ?? Date.now;
    this.snapshotPath = `${path}.snapshot.json`;
  }

  async open(): Promise<RecoveredLog> {
    const lines: string[] = [];
    const recovered = await this.openFrom((line) => lines.push(line));
    return { lines, ...recovered };
  }

  /** See LogFileStore.openFrom. */
  async openFrom(onLine: (line: string) => void, start?: LogPoint) {
    const { path } = this;
    const reader = this.openReader();
    let read: ReadTo = { index: start?.index ?? 0, at: start?.offset ?? 0, tail: Buffer.alloc(0) };
    let warning: string | undefined;
    if (start && reader && reader.size === start.offset - 1) {
      // The snapshot's last line is the log's last, now without its newline: kept, as below.
      reader.close();
      read.at -= 1;
      this.newlineOwed = true;
      warning = `${path}: the last record (${start.lastBytes} bytes) had no newline; it is whole and was kept`;
    } else if (reader) {
      read = this.readLines(reader, onLine, read);
    }
    this.durableBytes = read.at;
    let fenceFloor = 0;
    if (read.tail.length > 0) ({ fenceFloor, warning } = await this.keepTail(read, onLine));
    try {
      this.file = await this.fs.openLog(path);
    } catch (error) {
      throw new StoreError(`Cannot open the kernel's log ${path}: ${causeText(error)}`, {
        cause: error,
      });
    }
    await this.repair();
    return { fenceFloor, ...(warning ? { warning } : {}) };
  }

  private openReader(): LogReader | undefined {
    try {
      return this.fs.openRead(this.path);
    } catch (error) {
      throw new StoreError(`Cannot read the kernel's log ${this.path}: ${causeText(error)}`, {
        cause: error,
      });
    }
  }

  /** Hands out each whole line from `from` on; only the part after the last newline is carried. */
  private readLines(reader: LogReader, onLine: (line: string) => void, from: ReadTo): ReadTo {
    let { index, at, tail } = from;
    try {
      const block = Buffer.allocUnsafe(READ_BYTES);
      for (let position = at; position < reader.size;) {
        let n: number;
        try {
          n = reader.read(block, position);
        } catch (error) {
          throw new StoreError(`Cannot read the kernel's log ${this.path}: ${causeText(error)}`, {
            cause: error,
          });
        }
        if (n <= 0) break;
        position += n;
        const data =
          tail.length > 0 ? Buffer.concat([tail, block.subarray(0, n)]) : block.subarray(0, n);
        let start = 0;
        for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
          onLine(data.toString('utf8', start, nl));
          index += 1;
          at += nl - start + 1;
          start = nl + 1;
        }
        tail = Buffer.from(data.subarray(start));
      }
    } finally {
      reader.close();
    }
    return { index, at, tail };
  }

  /**
   * The bytes after the last newline: a record whole and valid but for its newline may have
   * been acknowledged, so it stays; a torn one is saved to a copy, then cut off.
   */
  private async keepTail(
    { index, tail }: ReadTo,
    onLine: (line: string) => void,
  ): Promise<{ fenceFloor: number; warning: string }> {
    const { path } = this;
    const text = tail.toString('utf8');
    if (readEntry(text, index)) {
      onLine(text);
      this.durableBytes += tail.length;
      this.newlineOwed = true;
      const warning = `${path}: the last record (${tail.length} bytes) had no newline; it is whole and was kept`;
      return { fenceFloor: 0, warning };
    }
    const copy = `${path}.cut-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}`;
    try {
      await this.fs.saveCopy(copy, tail);
    } catch (error) {
      throw new StoreError(
        `${path}: the last record is torn (${tail.length} bytes) and cannot be saved to ${copy} before it is cut: ${causeText(error)}. Free space and start again.`,
        { cause: error },
      );
    }
    this.dirty = true;
    return {
      fenceFloor: highestFence(text),
      warning: `${path}: the last record was torn (${tail.length} bytes without an end); it was saved to ${copy}, cut off, and the ${index} records before it kept`,
    };
  }

  /** Cuts the file back to what is durable (a torn record, a failed write), and syncs it. */
  private async repair(): Promise<void> {
    const { file, durableBytes } = this;
    if (!this.dirty || !file) return;
    try {
      const size = await file.size();
      if (size < durableBytes) {
        throw new Error(
          `it holds ${size} bytes, fewer than the ${durableBytes} already durable; refusing to extend it`,
        );
      }
      if (size > durableBytes) await file.truncate(durableBytes);
      await file.datasync();
      this.dirty = false;
    } catch (error) {
      throw new StoreError(`cannot repair ${this.path}: ${causeText(error)}`, { cause: error });
    }
  }

  readSnapshot() {
    return readSnapshotFile(this.path, this.snapshotPath);
  }

  writeSnapshot(body: readonly string[]): Promise<void> {
    return writeSnapshotFile(this.snapshotPath, body);
  }

  async append(text: string): Promise<void> {
    const { file, path } = this;
    if (!file) throw new StoreError(`${path} is not open`);
    await this.repair();
    const bytes = Buffer.from(this.newlineOwed ? `\n${text}` : text, 'utf8');
    const start = this.durableBytes;
    try {
      this.dirty = true;
      // Only bytes a write reports count: a short one (a full disk) goes on from there, or fails.
      await writeAll((b, o, l) => file.write(b, o, l, start + o), bytes, start);
      await file.datasync();
    } catch (error) {
      await this.repair().catch(() => undefined);
      throw new StoreError(`cannot write ${path}: ${causeText(error)}`, { cause: error });
    }
    this.durableBytes += bytes.length;
    this.newlineOwed = false;
    this.dirty = false;
  }

  async probe(): Promise<void> {
    if (!this.file) throw new StoreError(`${this.path} is not open`);
    await this.repair();
    try {
      await this.file.datasync();
    } catch (error) {
      throw new StoreError(`cannot sync ${this.path}: ${causeText(error)}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    await this.file?.close();
    this.file = undefined;
  }
}

/** The highest fence named in bytes that are cut: a fence seen anywhere is never issued again. */
function highestFence(text: string): number {
  let highest = 0;
  for (const match of text.matchAll(/"fence":(\d{1,15})/g))
    highest = Math.max(highest, Number(match[1]));
  return highest;
}
