import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../fs/durable.js';
import { keeperRecordSchema, type KeeperRecord } from '../gate/keeper-status.js';
import { leaseSchema } from '../plane/schema.js';

/**
 * The keeper's status file crosses a process boundary, so both sides read it
 * through the same schema. Main creates it before the keeper starts; post
 * removes it, which tells a keeper it was not told of to stop.
 *
 * It is replaced whole at every change (a reader finds the old record or the new one, never
 * half), but not durably (writeFileAtomicSync, no fsync): it lives in RUNNER_TEMP for one job,
 * and only main (waiting for the first record and renewal) and post (after stopping the
 * keeper) read it. A crash of the machine ends the job without its post step, so no reader is
 * left to find what a crash kept. Synced, each renewal's write was two fsyncs, most of the
 * keeper's CPU (docs/performance.md, the keeper; #56 had made every write durable alike). It
 * is still written at every renewal: a keeper killed rather than stopped leaves post its last
 * record, whose `expiresAtMs` post reports as when the lease lapses on its own.
 */

export type { KeeperRecord };

/** The keeper's first argument: the granted lease, checked like a plane answer. */
export const keeperLeaseSchema = leaseSchema;

const STARTING = '{"starting":true}';

export function createStatusFile(file: string): void {
  writeFileAtomicSync(file, STARTING);
}

/** The keeper's last record, or undefined while it has written none (or the file is gone or bad). */
export function readStatusFile(file: string): KeeperRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const parsed = keeperRecordSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** Writes the keeper's record, unless post has removed the file (then nobody wants it). */
export function writeStatusFile(file: string, record: KeeperRecord): boolean {
  if (!existsSync(file)) return false;
  writeFileAtomicSync(file, JSON.stringify(record));
  return true;
}
