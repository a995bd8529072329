import pg from 'pg';
import { percentile } from './stats.js';

/**
 * The floor under any durable handover on this database (issue #59, item 5): one session
 * commits a one-row upsert, `synchronous_commit` on, `rounds` times; each is timed from the
 * statement sent to its answer. A release must be durable before the next holder is granted,
 * and that grant durable before it is answered, so a handover through the kernel pays at
 * least one of these (both in one commit when the waiter is held on the releasing replica);
 * `pg_advisory_lock` pays none (its lock lives in shared memory).
 */
export interface CommitFloor {
  rounds: number;
  p50Ms: number;
  p99Ms: number;
}

export async function commitFloor(url: string, rounds = 100): Promise<CommitFloor> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  await client.connect();
  const samples: number[] = [];
  try {
    await client.query('SET synchronous_commit = on');
    // A temporary table writes no WAL: the probe is an ordinary one, dropped after.
    const table = `lease_gate_floor_${process.pid}`;
    await client.query(`CREATE TABLE IF NOT EXISTS ${table} (k int PRIMARY KEY, v int)`);
    try {
      const upsert = {
        name: 'lease_gate_floor',
        text: `INSERT INTO ${table} VALUES (1, $1) ON CONFLICT (k) DO UPDATE SET v = excluded.v`,
      };
      for (let i = 0; i < rounds; i += 1) {
        const t = performance.now();
        await client.query({ ...upsert, values: [i] });
        samples.push(performance.now() - t);
      }
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${table}`);
    }
  } finally {
    await client.end();
  }
  return { rounds, p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
}
