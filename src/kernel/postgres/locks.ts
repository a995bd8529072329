import { createHash } from 'node:crypto';

// The first half of each advisory lock key: ours, whatever else shares the database.
const SEQUENCER = 0x4c470002;
/** The writers' stripes: this plus 0 … WRITER_STRIPES - 1. */
const WRITERS = 0x4c470100;
const WRITER_STRIPES = 16;

/**
 * The advisory locks of one plane (one schema), as SQL (two int4 keys, so
 * other planes and other applications in the database never collide); they
 * are literals and our own expressions, never user input.
 * - `writer`: taken shared by every commit, from its first statement to its
 *   end, on one of 16 stripes (its connection's, by backend pid).
 * - `watermark`: the sequencer takes each stripe exclusively and lets it go at
 *   once, one after another. Once it is through, every commit that held a
 *   stripe before it started has ended; meanwhile only the commits that start
 *   on the one stripe it waits for are held back (an exclusive request queues
 *   new shared ones), not every commit of the plane.
 * - `sequencer`: one replica sequences at a time.
 */
export interface PlaneLocks {
  writer: string;
  /** The writers' first stripe and the plane's key, as lease_gate_commit takes them (migration 4). */
  stripes: number;
  plane: number;
  watermark: string;
  sequencer: string;
}

export function planeLocks(schema: string): PlaneLocks {
  const id = createHash('sha256').update(`lease-gate ${schema}`).digest().readInt32BE(0);
  return {
    stripes: WRITERS,
    plane: id,
    writer: `${WRITERS} + pg_backend_pid() % ${WRITER_STRIPES}, ${id}`,
    watermark: `SELECT pg_advisory_lock(k, ${id}), pg_advisory_unlock(k, ${id})
                  FROM generate_series(${WRITERS}, ${WRITERS + WRITER_STRIPES - 1}) AS k`,
    sequencer: `${SEQUENCER}, ${id}`,
  };
}
