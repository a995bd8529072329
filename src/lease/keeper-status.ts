import * as z from 'zod/mini';
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../fs/atomic.js';
import type { KeeperStatus } from '../gate/keep.js';
import { leaseSchema } from '../plane/schema.js';

/**
 * The keeper's status file crosses a process boundary, so both sides read it
 * through the same schema. Main creates it before the keeper starts; post
 * removes it, which tells a keeper it was not told of to stop.
 */

const text = z.string().check(z.maxLength(2_000));
const at = z.number().check(z.refine(Number.isFinite));

export const keeperStatusSchema = z.object({
  pid: z.number().check(z.refine(Number.isInteger)),
  resource: text,
  actorDid: text,
  leaseId: text,
  fence: z.optional(z.number()),
  expiresAtMs: at,
  renewals: z.number(),
  lastRenewedAtMs: z.optional(at),
  failures: z.number(),
  lastError: z.optional(text),
  lost: z.optional(
    z.object({
      atMs: at,
      endedAtMs: z.optional(at),
      reason: text,
      holder: z.optional(text),
      message: z.optional(text),
      newLeaseId: z.optional(text),
      gaveBack: z.optional(z.boolean()),
    }),
  ),
  ended: z.optional(
    z.object({
      atMs: at,
      why: z.enum(['stopped', 'lifetime', 'parent-gone', 'lost', 'key-refused', 'not-wanted']),
    }),
  ),
});
export type KeeperRecord = KeeperStatus & { pid: number };

/** The keeper's first argument: the granted lease, checked like a plane answer. */
export const keeperLeaseSchema = leaseSchema;

const STARTING = '{"starting":true}';

export function createStatusFile(file: string): void {
  writeFileAtomic(file, STARTING);
}

/** The keeper's last record, or undefined while it has written none (or the file is gone or bad). */
export function readStatusFile(file: string): KeeperRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const parsed = keeperStatusSchema.safeParse(raw);
  return parsed.success ? (parsed.data as KeeperRecord) : undefined;
}

/** Writes the keeper's record, unless post has removed the file (then nobody wants it). */
export function writeStatusFile(file: string, record: KeeperRecord): boolean {
  if (!existsSync(file)) return false;
  writeFileAtomic(file, JSON.stringify(record));
  return true;
}
