import { existsSync, readFileSync } from 'node:fs';
import { writeFileDurableSync } from '../fs/durable.js';
import { keeperRecordSchema, type KeeperRecord } from '../gate/keeper-status.js';
import { leaseSchema } from '../plane/schema.js';

/**
 * The keeper's status file crosses a process boundary, so both sides read it
 * through the same schema. Main creates it before the keeper starts; post
 * removes it, which tells a keeper it was not told of to stop.
 */

export type { KeeperRecord };

/** The keeper's first argument: the granted lease, checked like a plane answer. */
export const keeperLeaseSchema = leaseSchema;

const STARTING = '{"starting":true}';

export function createStatusFile(file: string): void {
  writeFileDurableSync(file, STARTING);
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
  writeFileDurableSync(file, JSON.stringify(record));
  return true;
}
