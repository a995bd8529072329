import { createHash } from 'node:crypto';

// The first half of each advisory lock key: ours, whatever else shares the database.
const WRITERS = 0x4c470001;
const SEQUENCER = 0x4c470002;

/**
 * The advisory locks of one plane (one schema), as SQL arguments (two int4,
 * so other planes and other applications in the database never collide).
 * `writers` is taken shared by every commit that adds ledger entries and, for
 * a moment, exclusively by the sequencer (its watermark); `sequencer` lets
 * one replica sequence at a time. They are literals, never user input.
 */
export interface PlaneLocks {
  writers: string;
  sequencer: string;
}

export function planeLocks(schema: string): PlaneLocks {
  const id = createHash('sha256').update(`lease-gate ${schema}`).digest().readInt32BE(0);
  return { writers: `${WRITERS}, ${id}`, sequencer: `${SEQUENCER}, ${id}` };
}
