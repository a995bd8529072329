import type pg from 'pg';
import { fenceFloor, MAX_TIMELINE } from '../rules/failover.js';
import { StoreError } from '../store/store-error.js';
import { NOW_MS } from './transaction.js';

/** What a connection found: the database's timeline, and when a replica saw it change (0: never). */
export interface TimelineSeen {
  timeline: number;
  changedMs: number;
  /** The ledger's numbered size when the change was recorded (lease_gate_sequenced). */
  sizeAtChange: number;
}

/** The server's current WAL insert timeline; fails on a standby (recovery is in progress). */
const CURRENT = `('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint`;

/**
 * Run on each connection before its first change. A primary's timeline is fixed while it
 * runs (only a promotion, of a standby, starts a new one), so a connection that found
 * its server writable on timeline t writes on t until it closes. When lease_gate_timeline
 * names another timeline, this is the first connection to the promoted standby: it
 * records the new timeline and the time (the database's clock), and raises the fence
 * sequence to the new timeline's epoch (failover.ts), in one transaction whose row lock
 * makes the replicas that race here do it once. setval is not transactional: the floor
 * holds as soon as it is set, before any change of this connection.
 * Needs no privilege beyond the schema's: pg_walfile_name and pg_current_wal_lsn are
 * PUBLIC, and pg_current_wal_lsn refuses a standby, so a kernel never writes on one.
 */
export async function followTimeline(client: pg.ClientBase): Promise<TimelineSeen> {
  const seen = await read(client);
  if (seen.stored === seen.timeline) return seen;
  const floor = fenceFloor(seen.timeline);
  if (floor === undefined)
    throw new StoreError(
      `the database is on timeline ${seen.timeline}, past ${MAX_TIMELINE}: its fences would exceed 2^53; restore it to a fresh cluster (timeline 1)`,
    );
  await client.query('BEGIN');
  try {
    await client.query(
      `UPDATE lease_gate_timeline SET timeline = $1, changed_ms = ${NOW_MS},
              size_at_change = (SELECT size FROM lease_gate_sequenced WHERE id = 1)
        WHERE id = 1 AND timeline <> $1`,
      [seen.timeline],
    );
    await client.query(
      `SELECT setval('lease_gate_fence', $1::bigint, true)
        WHERE $1::bigint > (SELECT last_value FROM lease_gate_fence)`,
      [floor],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  const after = await read(client);
  if (after.stored !== after.timeline)
    throw new StoreError(
      `lease_gate_timeline names timeline ${after.stored} after recording ${after.timeline}`,
    );
  return after;
}

async function read(client: pg.ClientBase): Promise<TimelineSeen & { stored: number }> {
  const { rows } = await client.query<{
    current: string;
    stored: string;
    changed_ms: number;
    size_at_change: string;
  }>(
    `SELECT ${CURRENT} AS current, t.timeline AS stored, t.changed_ms, t.size_at_change
       FROM lease_gate_timeline AS t WHERE t.id = 1`,
  );
  const row = rows[0];
  if (!row) throw new StoreError('lease_gate_timeline has no row: run lease-gate kernel migrate');
  return {
    timeline: Number(row.current),
    stored: Number(row.stored),
    changedMs: row.changed_ms,
    sizeAtChange: Number(row.size_at_change),
  };
}
