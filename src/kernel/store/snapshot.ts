import * as z from 'zod/mini';
import { resourceStateSchema } from '../rules/state.js';

const whole = z.number().check(z.int(), z.nonnegative());

/**
 * The file carries its own checksum and its last line is checked against the
 * log; its states are still read through the one state schema (state.ts).
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
  states: z.array(resourceStateSchema),
});

/**
 * What a file kernel's snapshot holds beside what the store checks against
 * the log (store.ts `SnapshotFile`): the states as replaying the log up to the
 * snapshot makes them (never the live table, which knows things the log does
 * not), the highest fence and the time the log ends with, the ledger's tree
 * and the index of its lines. Only ever a shortcut through the log.
 */
export type SnapshotState = z.infer<typeof snapshotStateSchema>;

/** The state a snapshot file holds, or undefined when it is not one this kernel writes. */
export function readSnapshotState(value: unknown): SnapshotState | undefined {
  const parsed = snapshotStateSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
