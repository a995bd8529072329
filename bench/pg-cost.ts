import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { CycleResult } from './cycles.js';
import { findPgbench, withUpserts } from './pgbench.js';
import { handoverCosts, handoverTable, type HandoverCosts } from './pg-handover.js';
import { commitFloor, type CommitFloor } from './pg-commit-floor.js';
import { PGBENCH_GOAL, pgGoalRows } from './pg-goals.js';
import { URL, benchSchemas, run, startReplica, stopped } from './postgres.js';
import { runRole, startKernel } from './spawn.js';
import { sample, spent } from './proc-cpu.js';
import { countingProxy, type Counts } from './pg-counting-proxy.js';
import { round, type Row } from './stats.js';

/**
 * What one change costs on the PostgreSQL store (issue #38): for 1, 2 and 3
 * replicas at 16 clients on resources of their own, and for pgbench's one-row
 * upsert, the round trips to the database and the CPU (the replicas', the
 * database's, the whole machine's) per change. Two runs per column: one
 * straight to the database for the rate and the CPU, and a shorter one through
 * a counting proxy for the round trips (the proxy costs CPU and latency, so it
 * never shares a run with the CPU figures). Linux only: it reads /proc.
 */

export const COST_SECTION = 'PostgreSQL commit: round trips and CPU per change (issue #38)';
const CLIENTS = 16;
const SECONDS = Number(process.env.LEASE_GATE_BENCH_PLANE_SECONDS ?? 5);
const PROXY_SECONDS = 2;

interface Cost {
  column: string;
  changesPerSecond: number;
  roundTripsPerChange: number;
  /** Changes per call of lease_gate_commit (a batch's attempt); pgbench commits each statement alone. */
  changesPerCommit: number | undefined;
  /** Round trips per second per replica with no load (its sequencer's and listeners' upkeep). */
  idleRoundTripsPerSecond: number | undefined;
  /** CPU ms per change: the replicas' processes (every thread), the database's, the machine's. */
  planeMs: number;
  databaseMs: number;
  machineMs: number;
  /** The share of all cores busy during the run. */
  busy: number;
}

export async function postgresCost(log: (line: string) => void): Promise<{
  table: string;
  rows: Row[];
  /** Issue #59's goals, each beside its figure (pg-goals.ts). */
  goals: Row[];
}> {
  const admin = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 2_000 });
  admin.on('error', () => undefined);
  await admin.connect();
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-pg-cost-'));
  const proxy = await countingProxy(URL);
  const schemas = benchSchemas(admin);
  const fresh = schemas.fresh;
  const costs: Cost[] = [];
  let hand: HandoverCosts | undefined;
  let floor: CommitFloor | undefined;
  let memory: { kernelMs: number } | undefined;
  try {
    await run(['keygen', '--out', dir]);
    log('pg-cost: the memory kernel, the same load …');
    memory = await onMemoryKernel(SECONDS);
    for (const count of [1, 2, 3]) {
      const column = count === 1 ? '1 replica' : `${count} replicas`;
      log(`pg-cost: ${column} …`);
      const cpu = await onReplicas(await fresh(), count, URL, dir, admin, SECONDS);
      const trips = await onReplicas(
        await fresh(),
        count,
        proxy.url,
        dir,
        admin,
        PROXY_SECONDS,
        proxy.counts,
      );
      costs.push({
        column,
        changesPerSecond: cpu.changes / cpu.seconds,
        roundTripsPerChange: trips.counted.ready / trips.changes,
        changesPerCommit: trips.changes / trips.counted.batches,
        idleRoundTripsPerSecond: trips.idle / count,
        planeMs: cpu.planeMs / cpu.changes,
        databaseMs: cpu.databaseMs / cpu.changes,
        machineMs: cpu.machineMs / cpu.changes,
        busy: cpu.busy,
      });
      log(`  ${describe(costs.at(-1)!)}`);
    }
    const binary = findPgbench();
    if (binary) {
      log(`pg-cost: pgbench, one-row upserts …`);
      const schema = await fresh();
      await withUpserts(binary, admin, schema, async (upserts) => {
        const before = sample([]);
        const { tps } = await upserts(URL, CLIENTS, SECONDS);
        const cpu = spent(before, sample([]));
        const trips = proxy.counts().ready;
        const proxied = (await upserts(proxy.url, CLIENTS, PROXY_SECONDS)).transactions;
        // Its start-up's round trips are in the count: one per connection.
        const counted = proxy.counts().ready - trips - CLIENTS;
        // pgbench's tps leaves out connecting; its run is -T long, so changes ≈ tps × seconds.
        const changes = tps * SECONDS;
        costs.push({
          column: 'pgbench',
          changesPerSecond: tps,
          roundTripsPerChange: counted / proxied,
          changesPerCommit: undefined,
          idleRoundTripsPerSecond: undefined,
          planeMs: 0,
          databaseMs: cpu.databaseMs / changes,
          machineMs: cpu.machineMs / changes,
          busy: cpu.busy,
        });
        log(`  ${describe(costs.at(-1)!)}`);
      });
    }
    hand = await handoverCosts(URL, fresh, dir, log);
    floor = await commitFloor(URL);
  } finally {
    await schemas.drop();
    await admin.end();
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const table = [costTable(costs), ...(hand ? [handoverTable(hand)] : [])].join('\n\n');
  return { table, rows: costRows(costs), goals: pgGoalRows(costs, { hand, floor, memory }) };
}

/**
 * `count` replicas on `databaseUrl`, loaded by 16 clients for `seconds`; the
 * changes are the ledger entries the run added, counted once the sequencer
 * numbered them all, and the CPU and `counts` are read around the same span.
 * With `counts`, first the round trips of one idle second.
 */
async function onReplicas(
  schema: string,
  count: number,
  databaseUrl: string,
  dir: string,
  admin: pg.Client,
  seconds: number,
  counts: () => Counts = () => ({ ready: 0, commits: 0, batches: 0 }),
) {
  const replicas: Awaited<ReturnType<typeof startReplica>>[] = [];
  try {
    for (let i = 0; i < count; i += 1)
      replicas.push(await startReplica(schema, join(dir, 'ledger.key'), databaseUrl));
    const pids = replicas.map((r) => r.child.pid!);
    const entries = () => settledEntries(admin, schema);
    // Started: a second for their start-up's work to end, then one idle second counted.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const quiet = counts().ready;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const idle = counts().ready - quiet;
    const [size, counted, before] = [await entries(), counts(), sample(pids)];
    await cycles(
      replicas.map((r) => r.url),
      seconds,
    );
    const changes = (await entries()) - size;
    const after = counts();
    return {
      changes,
      idle,
      counted: {
        ready: after.ready - counted.ready,
        commits: after.commits - counted.commits,
        batches: after.batches - counted.batches,
      },
      ...spent(before, sample(pids)),
    };
  } finally {
    await Promise.all(replicas.map((r) => stopped(r.child)));
  }
}

/** The load: 16 clients cycling lease and release on resources of their own, in a process of its own. */
async function cycles(urls: string[], seconds: number): Promise<CycleResult> {
  const load = await runRole<CycleResult>(
    'cycles',
    [
      JSON.stringify({
        plane: 'kernel',
        urls,
        clients: CLIENTS,
        resources: CLIENTS,
        seconds,
        warmupSeconds: 0,
      }),
    ],
    (seconds + 60) * 1000,
  );
  if (load.errors) throw new Error(`${load.errors} errors, the first: ${load.firstError}`);
  return load;
}

/**
 * The same load on the committed memory kernel: its CPU per change (every thread), what the
 * kernel pays with no database, for the replica's figure to be read against (two changes a
 * cycle, lease and release, as on the replicas).
 */
async function onMemoryKernel(seconds: number): Promise<{ kernelMs: number }> {
  const kernel = await startKernel();
  try {
    const before = sample([kernel.pid]);
    const load = await cycles([kernel.url], seconds);
    return { kernelMs: spent(before, sample([kernel.pid])).planeMs / (load.cycles * 2) };
  } finally {
    await kernel.stop();
  }
}

/** The ledger's entries once none is waiting for its number (bounded: 10 s). */
async function settledEntries(admin: pg.Client, schema: string): Promise<number> {
  for (let i = 0; i < 1_000; i += 1) {
    const { rows } = await admin.query<{ pending: string; entries: string }>(
      `SELECT (SELECT count(*) FROM ${schema}.lease_gate_pending) AS pending,
              (SELECT count(*) FROM ${schema}.lease_gate_ledger) AS entries`,
    );
    if (rows[0]!.pending === '0') return Number(rows[0]!.entries);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${schema}: entries still waiting for their numbers after 10 s`);
}

const describe = (c: Cost) =>
  `${c.column}: ${Math.round(c.changesPerSecond)} changes/s, ${round(c.roundTripsPerChange, 2)} round trips, ` +
  `${round(c.changesPerCommit ?? 1, 1)} changes a commit, ` +
  `CPU ms per change: plane ${round(c.planeMs, 3)}, database ${round(c.databaseMs, 3)}, ` +
  `machine ${round(c.machineMs, 3)} (${Math.round(c.busy * 100)} % of ${cpus().length} cores busy)`;

const METRICS: [string, (c: Cost) => string][] = [
  ['changes per second', (c) => Math.round(c.changesPerSecond).toLocaleString('en-US')],
  ['round trips to the database per change', (c) => String(round(c.roundTripsPerChange, 2))],
  [
    'of them, lease_gate_commit calls (one round trip each)',
    (c) => (c.column === 'pgbench' ? '—' : String(round(1 / (c.changesPerCommit ?? 1), 2))),
  ],
  [
    'changes per batch (a lease_gate_commit call)',
    (c) => (c.changesPerCommit ? String(round(c.changesPerCommit, 1)) : '1'),
  ],
  [
    'round trips per second per idle replica',
    (c) =>
      c.idleRoundTripsPerSecond === undefined ? '—' : String(round(c.idleRoundTripsPerSecond, 1)),
  ],
  ['CPU per change, the replicas (every thread)', (c) => (c.planeMs ? ms(c.planeMs) : '—')],
  ['CPU per change, PostgreSQL (every backend)', (c) => ms(c.databaseMs)],
  ['CPU per change, the whole machine', (c) => ms(c.machineMs)],
  [`cores busy (of ${cpus().length})`, (c) => `${Math.round(c.busy * 100)} %`],
];

const ms = (value: number) => `${round(value, 3)} ms`;

/** Each column's changes per second over pgbench's transactions per second, beside the goal. */
function metricsOf(costs: Cost[]): [string, (c: Cost) => string][] {
  const pgbench = costs.find((c) => c.column === 'pgbench')?.changesPerSecond;
  if (!pgbench) return METRICS;
  const ratio = (c: Cost) => {
    if (c.column === 'pgbench') return '1';
    const r = c.changesPerSecond / pgbench;
    return `${round(r, 2)} × ${r >= PGBENCH_GOAL ? '✓' : '✗'}`;
  };
  return [...METRICS, [`changes per second / pgbench's (goal ≥ ${PGBENCH_GOAL} ×)`, ratio]];
}

function costTable(costs: Cost[]): string {
  return [
    `| ${CLIENTS} clients | ${costs.map((c) => c.column).join(' | ')} |`,
    `|---|${costs.map(() => '---:').join('|')}|`,
    ...metricsOf(costs).map(([name, value]) => `| ${name} | ${costs.map(value).join(' | ')} |`),
  ].join('\n');
}

function costRows(costs: Cost[]): Row[] {
  return costs.flatMap((c) =>
    metricsOf(costs).map(([name, value]) => ({
      section: COST_SECTION,
      metric: `${c.column}: ${name}`,
      value: value(c),
      unit: '',
      pageOnly: true,
    })),
  );
}
