import type pg from 'pg';
import { entryJson, type LedgerEntry } from '../../ledger/entry.js';
import { numberEntries } from '../../ledger/ledger.js';
import { kernelEventSchema } from '../rules/event.js';
import { StoreError } from '../store/store-error.js';
import type { PlaneLocks } from './locks.js';
import { arrayLiteral, integerLiteral } from './literals.js';

/** Entries numbered per sequencing transaction at most. */
export const SEQUENCE_BATCH = 2_000;

/**
 * One sequencing transaction: moves committed pending entries into the
 * ledger, numbered after its head, in (major, key) order. Returns the entries
 * it numbered, in that order, or undefined when another replica is sequencing
 * (`wait` false).
 *
 * Which pending entries may be numbered now: those whose major is at most F,
 * the fence sequence's value read before the watermark. Every commit holds a
 * writers stripe shared from its first statement to its end (locks.ts), and
 * the watermark takes each stripe exclusively for a moment, so once it is
 * through, every transaction that drew a fence ≤ F has ended; PostgreSQL
 * makes a commit visible before it releases its locks, so the next
 * statement's snapshot sees all of them. Then:
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
): Promise<LedgerEntry[] | undefined> {
  const take = wait
    ? `pg_advisory_xact_lock(${locks.sequencer}) IS NOT NULL`
    : `pg_try_advisory_xact_lock(${locks.sequencer})`;
  // One round trip: the sequencer's lock, then F (kept for the transaction; -1 when the lock
  // is another replica's), then the watermark (locks.ts), then, in a statement of its own and
  // so a snapshot taken after the watermark, the entries taken out of pending, lowest first.
  // Only the sequencer deletes pending rows, one at a time (its lock), so the rows it picks
  // are still where it found them; a rollback puts them back.
  try {
    const read = (await client.query(`BEGIN;
SELECT set_config('lease_gate.mark', CASE WHEN ${take}
         THEN (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM lease_gate_fence)::text
         ELSE '-1' END, true) AS f;
${locks.watermark} WHERE current_setting('lease_gate.mark')::bigint >= 0;
WITH taken AS (
  DELETE FROM lease_gate_pending WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM lease_gate_pending WHERE major <= current_setting('lease_gate.mark')::bigint
     ORDER BY major, key LIMIT ${integerLiteral(limit)}))
  RETURNING key, major, event)
SELECT h.size, h.last_ts, p.key, p.event FROM lease_gate_sequenced AS h
  LEFT JOIN taken AS p ON true WHERE h.id = 1 ORDER BY p.major, p.key`)) as unknown as [
      pg.QueryResult,
      pg.QueryResult<{ f: string }>,
      pg.QueryResult,
      pg.QueryResult,
    ];
    if (read[1].rows[0]?.f === '-1') {
      await client.query('ROLLBACK');
      return undefined;
    }
    const rows = read[3].rows as Array<{
      size: string;
      last_ts: string;
      key: string | null;
      event: string | null;
    }>;
    const head = rows[0]!;
    const pending = rows.filter((r) => r.key !== null);
    if (pending.length === 0) {
      await client.query('COMMIT');
      return [];
    }
    const events = pending.map((r) => {
      const parsed = kernelEventSchema.safeParse(JSON.parse(r.event!));
      if (!parsed.success)
        throw new StoreError(`lease_gate_pending entry ${r.key} is not a lease-gate change`);
      return parsed.data;
    });
    const entries = numberEntries(events, Number(head.size), Number(head.last_ts));
    const last = entries.at(-1)!;
    await client.query(
      `WITH logged AS (INSERT INTO lease_gate_ledger (seq, line)
                           SELECT * FROM unnest(${arrayLiteral(
                             entries.map((e) => e.seq),
                             'bigint',
                           )}, ${arrayLiteral(entries.map(entryJson), 'text')}))
         UPDATE lease_gate_sequenced SET size = ${integerLiteral(last.seq + 1)},
                last_ts = ${integerLiteral(last.tsMs)} WHERE id = 1;
         COMMIT`,
    );
    return entries;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
