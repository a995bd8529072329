import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import * as z from 'zod/mini';
import { causeText } from '../../errors.js';
import { writeFileDurable } from '../../fs/durable.js';
import type { SnapshotFile } from './kernel-store.js';
import { StoreError } from './store-error.js';

/**
 * The snapshot beside a file kernel's log (`LOG.snapshot.json`): a header line with the
 * SHA-256 of the body, then the body, a SnapshotFile whose `state` is the backend's.
 */

/** Pieces of a snapshot hashed or written between two yields to the event loop. */
const SNAPSHOT_PIECES_PER_TURN = 64;

const snapshotLogSchema = z.object({
  size: z.number().check(z.int(), z.positive()),
  lastOffset: z.number().check(z.int(), z.nonnegative()),
  lastBytes: z.number().check(z.int(), z.positive()),
  lastSha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  state: z.unknown(),
});

export const sha256Hex = (data: string | Uint8Array) =>
  createHash('sha256').update(data).digest('hex');

/** See LogFileStore.readSnapshot: the snapshot at `snapshotPath`, checked against the log at `logPath`. */
export function readSnapshotFile(
  logPath: string,
  snapshotPath: string,
): { snapshot: SnapshotFile } | { disagrees: SnapshotFile } | { ignored?: string } {
  let text: string;
  try {
    text = readSmall(snapshotPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { ignored: `cannot read it (${causeText(error)})` };
  }
  const newline = text.indexOf('\n');
  const body = text.slice(newline + 1).trimEnd();
  const header = /^\{"sha256":"([0-9a-f]{64})"\}$/.exec(text.slice(0, newline));
  if (newline < 0 || !header || sha256Hex(body) !== header[1]) return { ignored: 'it is damaged' };
  let parsed;
  try {
    parsed = snapshotLogSchema.safeParse(JSON.parse(body));
  } catch {
    return { ignored: 'it is damaged' };
  }
  if (!parsed.success) return { ignored: 'it is not a snapshot of this kernel' };
  const snapshot = parsed.data;
  // The log only grows past what a snapshot covers: one that lost or changed that entry is another history.
  return endsAtItsLastLine(logPath, snapshot) ? { snapshot } : { disagrees: snapshot };
}

/** The log holds, at the offset the snapshot names, the very line it names as its last. */
function endsAtItsLastLine(logPath: string, snapshot: SnapshotFile): boolean {
  const last = readAt(logPath, snapshot.lastOffset, snapshot.lastBytes + 1);
  const line = last?.subarray(0, snapshot.lastBytes);
  const before =
    snapshot.lastOffset === 0 ? 0x0a : readAt(logPath, snapshot.lastOffset - 1, 1)?.[0];
  if (!last || !line || line.length !== snapshot.lastBytes) return false;
  // Its newline after it (or the log's end), a newline before it, and the same bytes.
  if (last.length > snapshot.lastBytes && last[snapshot.lastBytes] !== 0x0a) return false;
  return before === 0x0a && sha256Hex(line) === snapshot.lastSha256;
}

/** See LogFileStore.writeSnapshot: replaced whole and durably (writeFileDurable), or a StoreError. */
export async function writeSnapshotFile(
  snapshotPath: string,
  body: readonly string[],
): Promise<void> {
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
}

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
