import * as z from 'zod/mini';
import type { LedgerSnapshot } from '../ledger/ledger.js';
import type { LogTime } from './restart.js';
import type { ResourceState } from './rules.js';

/**
 * What a file kernel's snapshot holds beside what the store checks against
 * the log (store.ts `SnapshotFile`): the states as replaying the log up to the
 * snapshot makes them (never the live table, which knows things the log does
 * not), the highest fence and the time the log ends with, the ledger's tree
 * and the index of its lines. Only ever a shortcut through the log.
 */
export interface SnapshotState {
  version: 1;
  ledger: LedgerSnapshot;
  /** The byte offset of every run of lines (file-lines.ts) and where the next line starts. */
  runStarts: number[];
  end: number;
  fence: number;
  time: LogTime;
  /** The replay depends on them (a lease's default end, a revoke's lock-delay): another kernel's differ. */
  ttlMs: number;
  lockDelayMs: number;
  states: ResourceState[];
}

const whole = z.number().check(z.int(), z.nonnegative());

/**
 * Checked for shape only: the file carries its own checksum, and its last line
 * is checked against the log; a state the rules then read is one this kernel wrote.
 */
const snapshotStateSchema = z.object({
  version: z.literal(1),
  ledger: z.object({
    size: whole,
    lastTs: z.number().check(z.int()),
    root: z.string(),
    chunkRoots: z.string(),
  }),
  runStarts: z.array(whole),
  end: whole,
  fence: z.number().check(z.int()),
  time: z.object({ lastMs: z.number(), earliestMs: z.number() }),
  ttlMs: z.number(),
  lockDelayMs: z.number(),
  states: z.array(
    z.looseObject({
      resource: z.string(),
      lease: z.nullable(z.looseObject({ id: z.string(), expiresAtMs: z.number() })),
      queue: z.array(z.unknown()),
      reservedUntilMs: z.number(),
      typicalHoldMs: z.nullable(z.number()),
      revoked: z.array(z.looseObject({ actorDid: z.string(), untilMs: z.number() })),
    }),
  ),
});

/** The state a snapshot file holds, or undefined when it is not one this kernel writes. */
export function readSnapshotState(value: unknown): SnapshotState | undefined {
  const parsed = snapshotStateSchema.safeParse(value);
  return parsed.success ? (parsed.data as unknown as SnapshotState) : undefined;
}
