import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fdWriter, handleWriter, writeAll, writeAllSync } from './write-all.js';

/** Text or bytes, as a durable file is written. */
export type Piece = string | Uint8Array;

/**
 * What a durable file holds: one piece, or a function that writes it a piece at a
 * time (a snapshot of megabytes, an export as its pages arrive) and may fail part-way.
 */
export type Content = Piece | ((write: (piece: Piece) => Promise<void>) => Promise<void>);

export interface DurableOptions {
  /** The new file's mode (0600 by default: kernel state, keys and cursors are private). */
  mode?: number | undefined;
  /**
   * The temporary file's name. By default one of this process's own, so two processes
   * replacing one file never write into the same temporary file.
   */
  temp?: string | undefined;
}

const bytesOf = (piece: Piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
const tempOf = (path: string, options: DurableOptions) =>
  options.temp ?? `${path}.${process.pid}.tmp`;

/**
 * Replaces `path` with `content` so that a reader, or a crash, finds the old file or
 * the new one whole, never half of it; once this resolves the new one survives a
 * crash. The content goes to a temporary file, every byte (writeAll), which is synced,
 * renamed over `path`, and then the directory is synced so the rename itself is on
 * disk. On a failure before the rename the temporary file is removed (a full disk
 * must not keep the space the next write needs) and `path` is untouched.
 */
export async function writeFileDurable(
  path: string,
  content: Content,
  options: DurableOptions = {},
): Promise<void> {
  const temp = tempOf(path, options);
  try {
    const handle = await open(temp, 'w', options.mode ?? 0o600);
    try {
      const write = handleWriter(handle);
      let size = 0;
      const append = async (piece: Piece) => {
        const bytes = bytesOf(piece);
        await writeAll(write, bytes, size);
        size += bytes.length;
      };
      await (typeof content === 'function' ? content(append) : append(content));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(path));
}

/**
 * writeFileDurable for callers that cannot wait: the notification worker's cursor saved
 * between two deliveries (an asynchronous save could finish after a later one and put an
 * older cursor back), and the kernel's signing key made during its synchronous start.
 */
export function writeFileDurableSync(
  path: string,
  text: Piece,
  options: DurableOptions = {},
): void {
  replaceSync(path, text, options, true);
}

/**
 * Replaces `path` with `text` so that a reader finds the old file or the new one whole,
 * never half of it, as writeFileDurableSync does, but NOT durably: neither the file nor its
 * directory is synced, so after a crash the old file, the new one, or (file systems that
 * allocate late) an empty one may be found. Only for a file that nobody reads after a crash
 * of the machine, and that is written often enough for two fsyncs a write to be most of its
 * writer's work: the keeper's status file (lease/keeper-status.ts says why).
 */
export function writeFileAtomicSync(path: string, text: Piece, options: DurableOptions = {}): void {
  replaceSync(path, text, options, false);
}

/** A temporary file, renamed over `path`; with `durable`, both synced (writeFileDurable's steps). */
function replaceSync(path: string, text: Piece, options: DurableOptions, durable: boolean): void {
  const temp = tempOf(path, options);
  writeTempSync(temp, text, 'w', options.mode ?? 0o600, durable);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  if (durable) syncDirectorySync(dirname(path));
}

/**
 * Writes every byte of `text` to the file `temp` (opened with `flags`) and, unless told
 * `sync` false, syncs it; a file it opened and could not fill is removed.
 */
export function writeTempSync(
  temp: string,
  text: Piece,
  flags: string,
  mode: number,
  sync = true,
): void {
  const fd = openSync(temp, flags, mode);
  try {
    try {
      writeAllSync(fdWriter(fd), bytesOf(text), 0);
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * The one directory-sync policy. A rename or a new name is durable only once its
 * directory is synced, so a write whose directory sync fails was NOT made durable and
 * fails too — except where the platform cannot sync a directory at all: Windows cannot
 * open one (EISDIR, EPERM), and some file systems (network, FUSE) refuse fsync on one
 * (EINVAL). There a rename is as durable as that file system makes it, and refusing
 * every write would leave the kernel unable to run there.
 */
const NO_DIRECTORY_SYNC = new Set(['EISDIR', 'EINVAL', 'EPERM']);

const unsupported = (error: unknown) =>
  NO_DIRECTORY_SYNC.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');

/** Makes the directory's entries (a rename, a new name) durable; see NO_DIRECTORY_SYNC. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch (error) {
    if (unsupported(error)) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!unsupported(error)) throw error;
  } finally {
    await handle.close();
  }
}

/** syncDirectory's synchronous twin, for writeFileDurableSync and createFileOnce. */
export function syncDirectorySync(dir: string): void {
  let fd;
  try {
    fd = openSync(dir, 'r');
  } catch (error) {
    if (unsupported(error)) return;
    throw error;
  }
  try {
    fsyncSync(fd);
  } catch (error) {
    if (!unsupported(error)) throw error;
  } finally {
    closeSync(fd);
  }
}
