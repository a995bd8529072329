import { join } from 'node:path';
import pg from 'pg';
import { handover, startReplica, stopped } from './postgres.js';
import { percentile, round } from './stats.js';

/**
 * Handover on PostgreSQL beside the database's own lock (issue #59, item 5), in one run:
 * `pg_advisory_lock`, timed from the holder's `pg_advisory_unlock` sent to the waiter's
 * blocked `pg_advisory_lock` answered; the kernel, from the holder's release sent to the
 * waiter's held lease request (`Prefer: wait`) answered, on one replica and across two
 * (release on A, held request on B, woken by NOTIFY). Each the same number of rounds,
 * one after another on the same database.
 */

const ROUNDS = Number(process.env.LEASE_GATE_BENCH_HANDOVERS ?? 100);
/** The goal: the kernel's p99 on one replica within this many times pg_advisory_lock's. */
export const HANDOVER_GOAL = 3;

export interface HandoverCosts {
  rounds: number;
  advisory: { p50Ms: number; p99Ms: number };
  oneReplica: { p50Ms: number; p99Ms: number };
  twoReplicas: { p50Ms: number; p99Ms: number };
}

/** Two sessions hand one advisory lock back and forth, the waiter blocked in pg_advisory_lock. */
export async function advisoryHandover(url: string, rounds: number) {
  const sessions = [
    new pg.Client({ connectionString: url }),
    new pg.Client({ connectionString: url }),
  ];
  const watcher = new pg.Client({ connectionString: url });
  await Promise.all([...sessions, watcher].map((c) => c.connect()));
  const key = 0x4c47_0f00 + Math.floor(Math.random() * 0xff);
  const samples: number[] = [];
  try {
    const pids = await Promise.all(
      sessions.map(
        async (c) =>
          (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid,
      ),
    );
    for (let i = 0; i < rounds; i += 1) {
      const [holder, waiter] = i % 2 ? [sessions[0]!, sessions[1]!] : [sessions[1]!, sessions[0]!];
      const waiterPid = i % 2 ? pids[1]! : pids[0]!;
      await holder.query('SELECT pg_advisory_lock($1)', [key]);
      const granted = waiter
        .query('SELECT pg_advisory_lock($1)', [key])
        .then(() => performance.now());
      await blockedOn(watcher, waiterPid);
      const t = performance.now();
      await holder.query('SELECT pg_advisory_unlock($1)', [key]);
      samples.push((await granted) - t);
      await waiter.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  } finally {
    await Promise.all([...sessions, watcher].map((c) => c.end()));
  }
  return { p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
}

/** Until `pid` waits for an advisory lock (its request is queued); bounded. */
async function blockedOn(watcher: pg.Client, pid: number): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    const { rows } = await watcher.query(
      `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = $1 AND NOT granted`,
      [pid],
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`session ${pid} never waited for the advisory lock`);
}

/** The three handovers, on `schema` with replicas of the committed CLI. */
export async function handoverCosts(
  url: string,
  fresh: () => Promise<string>,
  dir: string,
  log: (line: string) => void,
): Promise<HandoverCosts> {
  log(`pg-cost: handover, pg_advisory_lock, ${ROUNDS} rounds …`);
  const advisory = await advisoryHandover(url, ROUNDS);
  const key = join(dir, 'ledger.key');
  const one = await startReplica(await fresh(), key, url);
  let oneReplica: HandoverCosts['oneReplica'];
  try {
    log(`pg-cost: handover, 1 replica …`);
    oneReplica = await handover(one.url, one.url, ROUNDS);
  } finally {
    await stopped(one.child);
  }
  const schema = await fresh();
  const pair = [await startReplica(schema, key, url), await startReplica(schema, key, url)];
  let twoReplicas: HandoverCosts['twoReplicas'];
  try {
    log(`pg-cost: handover, 2 replicas …`);
    twoReplicas = await handover(pair[0]!.url, pair[1]!.url, ROUNDS);
  } finally {
    await Promise.all(pair.map((r) => stopped(r.child)));
  }
  return { rounds: ROUNDS, advisory, oneReplica, twoReplicas };
}

export function handoverTable(h: HandoverCosts): string {
  const ratio = h.oneReplica.p99Ms / h.advisory.p99Ms;
  const ms = (v: number) => `${round(v, 2)} ms`;
  return [
    `| handover, ${h.rounds} rounds | p50 | p99 |`,
    '|---|---:|---:|',
    `| pg_advisory_lock (unlock sent → blocked lock answered) | ${ms(h.advisory.p50Ms)} | ${ms(h.advisory.p99Ms)} |`,
    `| kernel, 1 replica (release sent → held lease answered) | ${ms(h.oneReplica.p50Ms)} | ${ms(h.oneReplica.p99Ms)} |`,
    `| kernel, 2 replicas (release on A → held lease on B answered) | ${ms(h.twoReplicas.p50Ms)} | ${ms(h.twoReplicas.p99Ms)} |`,
    `| 1 replica's p99 / pg_advisory_lock's p99 | | ${round(ratio, 2)} × (goal ≤ ${HANDOVER_GOAL} ${ratio <= HANDOVER_GOAL ? '✓' : '✗'}) |`,
  ].join('\n');
}
