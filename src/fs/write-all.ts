import { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/**
 * Writes `length` bytes of `bytes` from `offset`, at `position` (null: where the
 * descriptor stands, as a pipe needs), and says how many it took: maybe fewer.
 */
export type WriteSome = (
  bytes: Uint8Array,
  offset: number,
  length: number,
  position: number | null,
) => Promise<number>;

/** WriteSome's synchronous twin, for writeAllSync. */
export type WriteSomeSync = (
  bytes: Uint8Array,
  offset: number,
  length: number,
  position: number | null,
) => number;

/** A file handle's writes, as writeAll takes them. */
export const handleWriter =
  (handle: FileHandle): WriteSome =>
  async (bytes, offset, length, position) =>
    (await handle.write(bytes, offset, length, position)).bytesWritten;

/** A descriptor's writes, as writeAllSync takes them. */
export const fdWriter =
  (fd: number): WriteSomeSync =>
  (bytes, offset, length, position) =>
    writeSync(fd, bytes, offset, length, position);

/**
 * Writes every byte of `bytes` at `position` (null: where the descriptor
 * stands). A write may take fewer bytes than asked (a full disk, a signal, a
 * pipe): the next goes on from there. One that takes none fails, rather than
 * loop for ever or let a caller count bytes that are not there.
 */
export async function writeAll(
  write: WriteSome,
  bytes: Uint8Array,
  position: number | null = null,
): Promise<void> {
  for (let written = 0; written < bytes.length;) {
    const at = position === null ? null : position + written;
    written += took(await write(bytes, written, bytes.length - written, at), written, bytes);
  }
}

/** writeAll's synchronous twin (see writeFileDurableSync for who needs it). */
export function writeAllSync(
  write: WriteSomeSync,
  bytes: Uint8Array,
  position: number | null = null,
): void {
  for (let written = 0; written < bytes.length;) {
    const at = position === null ? null : position + written;
    written += took(write(bytes, written, bytes.length - written, at), written, bytes);
  }
}

/** What one write took, or the error that says how far the whole got. */
function took(n: number, written: number, bytes: Uint8Array): number {
  if (!(n > 0)) throw new Error(`a write took ${written} of ${bytes.length} bytes`);
  return n;
}
