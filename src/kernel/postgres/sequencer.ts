import type pg from 'pg';
import { entryJson } from '../../ledger/entry.js';
import { numberEntries } from '../../ledger/ledger.js';
import { kernelEventSchema } from '../event.js';
import { StoreError } from '../store-error.js';
import type { PlaneLocks } from './locks.js';

/** Entries numbered per sequencing transaction at most. */
export const SEQUENCE_BATCH = 2_000;

/**
 * One sequencing transaction: moves committed pending entries into the
 * ledger, numbered after its head, in (major, key) order. Returns how many it
 * numbered, or undefined when another replica is sequencing (`wait` false).
 *
 * Which pending entries may be numbered now: those whose major is at most F,
 * the fence sequence's value read before the watermark. The watermark takes
 * the writers lock exclusively for a moment: every commit holds it shared from
 * its first statement to its end, so once it is granted every transaction that
 * drew a fence ≤ F has ended, and PostgreSQL makes a commit visible before it
 * releases its locks, so the next statement's snapshot sees all of them. Then:
 * - a grant numbered now has fence ≤ F, and every grant with a smaller fence
 *   drew it earlier, so it is visible too and numbered with it or before:
 *   fences rise along the ledger;
 * - an entry numbered now came after its resource's earlier changes, which
 *   committed before its row lock was taken, drew smaller keys and no larger
 *   major, so they are visible and numbered with it or before: each resource's
 *   history keeps its order.
 * Nothing is lost at a crash: the pending rows go in the transaction that
 * writes their ledger lines, and an entry is signed only once sequenced.
 */
export async function sequenceOnce(
  client: pg.ClientBase,
  locks: PlaneLocks,
  wait: boolean,
  limit = SEQUENCE_BATCH,
): Promise<number | undefined> {
  const take = wait
    ? `pg_advisory_xact_lock(${locks.sequencer}) IS NOT NULL`
    : `pg_try_advisory_xact_lock(${locks.sequencer})`;
  const opened = (await client.query(`BEGIN; SELECT ${take} AS mine`)) as unknown as Array<
    pg.QueryResult<{ mine: boolean }>
  >;
  try {
    if (!opened[1]?.rows[0]?.mine) {
      await client.query('ROLLBACK');
      return undefined;
    }
    // F first, then the watermark (a session lock, so it is held only for this moment).
    const marked = (await client.query(
      `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS f FROM lease_gate_fence;
       SELECT pg_advisory_lock(${locks.writers}); SELECT pg_advisory_unlock(${locks.writers})`,
    )) as unknown as Array<pg.QueryResult<{ f: string }>>;
    const mark = marked[0]!.rows[0]!.f;
    const { rows } = await client.query<{
      size: string;
      last_ts: string;
      key: string | null;
      event: string | null;
    }>({
      name: 'lease-gate pending',
      text: `SELECT h.size, h.last_ts, p.key, p.event FROM lease_gate_sequenced AS h
               LEFT JOIN LATERAL (SELECT key, major, event FROM lease_gate_pending WHERE major <= $1
                                   ORDER BY major, key LIMIT $2) AS p ON true
              WHERE h.id = 1 ORDER BY p.major, p.key`,
      values: [mark, limit],
    });
    const head = rows[0]!;
    const pending = rows.filter((r) => r.key !== null);
    if (pending.length === 0) {
      await client.query('COMMIT');
      return 0;
    }
    const events = pending.map((r) => {
      const parsed = kernelEventSchema.safeParse(JSON.parse(r.event!));
      if (!parsed.success)
        throw new StoreError(`lease_gate_pending entry ${r.key} is not a lease-gate change`);
      return parsed.data;
    });
    const entries = numberEntries(events, Number(head.size), Number(head.last_ts));
    const last = entries.at(-1)!;
    await client.query({
      name: 'lease-gate sequence',
      text: `WITH logged AS (INSERT INTO lease_gate_ledger (seq, line) SELECT * FROM unnest($1::bigint[], $2::text[])),
                  gone AS (DELETE FROM lease_gate_pending WHERE key = ANY($3::bigint[]))
             UPDATE lease_gate_sequenced SET size = $4, last_ts = $5 WHERE id = 1`,
      values: [
        entries.map((e) => e.seq),
        entries.map(entryJson),
        pending.map((r) => r.key),
        last.seq + 1,
        last.tsMs,
      ],
    });
    await client.query('COMMIT');
    return entries.length;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
