import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { constants, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from '../../fs/durable.js';
import { handleWriter, writeAll } from '../../fs/write-all.js';

/**
 * The few file-system calls the file store makes, as a seam: the store counts
 * only the bytes a write reports, so a test can hand it a file system whose
 * writes come up short or fail part-way, on a real file.
 */
export interface LogFs {
  /** Opens the file for positioned reads, or undefined when it does not exist. */
  openRead(path: string): LogReader | undefined;
  /** Opens (creating) the log for positioned writes. */
  openLog(path: string): Promise<LogFile>;
  /** Writes and syncs a new file (never over an existing one), and its name (the directory). */
  saveCopy(path: string, bytes: Uint8Array): Promise<void>;
}

/** Reads a log in pieces at start, so reading it never holds the whole file. */
export interface LogReader {
  readonly size: number;
  /** Reads at `position` into `into`; returns how many bytes were read (0 at the end). */
  read(into: Uint8Array, position: number): number;
  close(): void;
}

export interface LogFile {
  /** Writes at `position`; resolves with how many bytes were written, which may be fewer. */
  write(bytes: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  datasync(): Promise<void>;
  /** Only ever called to shorten the file. */
  truncate(length: number): Promise<void>;
  size(): Promise<number>;
  close(): Promise<void>;
}

export const nodeLogFs: LogFs = {
  openRead(path) {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return {
      size: fstatSync(fd).size,
      read: (into, position) => readSync(fd, into, 0, into.length, position),
      close: () => closeSync(fd),
    };
  },
  async openLog(path) {
    const handle = await open(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    return nodeLogFile(handle);
  },
  async saveCopy(path, bytes) {
    const handle = await open(path, 'wx', 0o600);
    try {
      await writeAll(handleWriter(handle), bytes, 0);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    // The log is cut only after this: the copy's name must outlive a crash too.
    await syncDirectory(dirname(path));
  },
};

function nodeLogFile(handle: FileHandle): LogFile {
  return {
    write: handleWriter(handle),
    datasync: () => handle.datasync(),
    truncate: (length) => handle.truncate(length),
    size: async () => (await handle.stat()).size,
    close: () => handle.close(),
  };
}
