import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { CycleResult } from './cycles.js';
import { findPgbench, withUpserts } from './pgbench.js';
import { handoverCosts, handoverTable, type HandoverCosts } from './pg-handover.js';
import { commitFloor, type CommitFloor } from './pg-commit-floor.js';
import { PGBENCH_GOAL, pgGoalRows } from './pg-goals.js';
import { URL, run, startReplica, stopped } from './postgres.js';
import { runRole, startKernel } from './spawn.js';
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
  const schemas: string[] = [];
  const costs: Cost[] = [];
  let hand: HandoverCosts | undefined;
  let floor: CommitFloor | undefined;
  let memory: { kernelMs: number } | undefined;
  try {
    await run(['keygen', '--out', dir]);
    const fresh = async () => {
      const schema = `lease_gate_bench_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.query('CHECKPOINT').catch(() => undefined);
      return schema;
    };
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
    for (const schema of schemas)
      await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
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

const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim() || 100);

interface Sample {
  at: number;
  planeTicks: number;
  databaseTicks: number;
  machineBusy: number;
  machineAll: number;
}

function sample(pids: number[]): Sample {
  const [busy, all] = machineTicks();
  return {
    at: performance.now(),
    planeTicks: pids.reduce((sum, pid) => sum + (processTicks(pid) ?? 0), 0),
    databaseTicks: postgresTicks(),
    machineBusy: busy,
    machineAll: all,
  };
}

function spent(a: Sample, b: Sample) {
  return {
    seconds: (b.at - a.at) / 1000,
    planeMs: (b.planeTicks - a.planeTicks) * TICK_MS,
    databaseMs: (b.databaseTicks - a.databaseTicks) * TICK_MS,
    machineMs: (b.machineBusy - a.machineBusy) * TICK_MS,
    busy: (b.machineBusy - a.machineBusy) / (b.machineAll - a.machineAll || 1),
  };
}

/**
 * utime + stime of a process (every thread), and with `reaped` the CPU of
 * the children it has waited for, from /proc/<pid>/stat; undefined when gone.
 */
function processTicks(pid: number | string, reaped = false): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // After "pid (comm) ": state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const f = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return f[11]! + f[12]! + (reaped ? f[13]! + f[14]! : 0);
}

/**
 * Every `postgres` process's CPU, with what the postmaster reaped: a backend
 * that exits within the span (pgbench's do) still counts, in its parent's.
 */
function postgresTicks(): number {
  let sum = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm === 'postgres') sum += processTicks(pid, true) ?? 0;
  }
  return sum;
}

/** The machine's busy and total ticks over every core, from /proc/stat. */
function machineTicks(): [number, number] {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
    line.split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return [busy, busy + idle + iowait];
}

export interface Counts {
  /** ReadyForQuery messages: round trips. */
  ready: number;
  /** CommandComplete messages tagged COMMIT: transactions committed by a COMMIT. */
  commits: number;
  /** Binds of the prepared lease_gate_commit: a batch's attempts (each its own transaction). */
  batches: number;
}

/**
 * A TCP proxy to the database that counts what the server says: PostgreSQL
 * sends exactly one ReadyForQuery per simple query and per Sync of an extended
 * query, so each is one round trip the client waited for. Its `url` is
 * `databaseUrl` with the proxy's address.
 */
export async function countingProxy(databaseUrl: string) {
  const target = new globalThis.URL(databaseUrl);
  const counts: Counts = { ready: 0, commits: 0, batches: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => (s === client ? upstream : client).destroy());
      s.on('close', () => {
        sockets.delete(s);
        (s === client ? upstream : client).end();
      });
    }
    const fromServer = serverMessages({
      ready: () => (counts.ready += 1),
      commit: () => (counts.commits += 1),
    });
    const opening = openingRequests(() => fromServer.expectByte());
    const binds = clientBinds((statement) => {
      if (statement === 'lease_gate_commit') counts.batches += 1;
    });
    client.on('data', (chunk: Buffer) => {
      const rest = opening(chunk);
      if (rest) binds(rest);
    });
    client.pipe(upstream);
    upstream.on('data', fromServer.parse);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = new globalThis.URL(databaseUrl);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    counts: (): Counts => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * The client's opening messages have no type byte: a length, then a code.
 * An SSLRequest or GSSENCRequest (libpq sends one unless told not to) is
 * answered by one bare byte, 'N' or 'S'; calls `answeredByByte` for each, and
 * stops looking at the startup message.
 */
export function openingRequests(answeredByByte: () => void): (chunk: Buffer) => Buffer | undefined {
  let head: Buffer = Buffer.alloc(0);
  let skip = 0;
  let done = false;
  return (chunk) => {
    let i = 0;
    if (done && skip === 0) return chunk;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        skip -= n;
        i += n;
        continue;
      }
      // What follows the startup message: the client's typed messages.
      if (done) return chunk.subarray(i);
      const take = chunk.subarray(i, i + 8 - head.length);
      head = head.length ? Buffer.concat([head, take]) : take;
      i += take.length;
      if (head.length < 8) return;
      const code = head.readUInt32BE(4);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) answeredByByte();
      else done = true;
      skip = head.readUInt32BE(0) - 8;
      head = Buffer.alloc(0);
    }
    return undefined;
  };
}

/**
 * The client's typed messages, across chunk boundaries: calls `bind` with the
 * prepared statement each Bind names (its body: a portal's name, then the statement's).
 */
export function clientBinds(bind: (statement: string) => void): (chunk: Buffer) => void {
  let head: Buffer = Buffer.alloc(0);
  let skip = 0;
  let body: Buffer | undefined;
  let bodyLeft = 0;
  return (chunk) => {
    let i = 0;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        if (body && bodyLeft > 0) {
          const piece = chunk.subarray(i, i + Math.min(n, bodyLeft));
          body = Buffer.concat([body, piece]);
          bodyLeft -= piece.length;
          if (bodyLeft === 0) bind(body.toString('latin1').split('\0')[1] ?? '');
        }
        skip -= n;
        i += n;
        continue;
      }
      const take = chunk.subarray(i, i + 5 - head.length);
      head = head.length ? Buffer.concat([head, take]) : take;
      i += take.length;
      if (head.length < 5) return;
      skip = head.readUInt32BE(1) - 4;
      // A Bind's first 64 bytes hold both names (ours are short).
      body = head[0] === 0x42 ? Buffer.alloc(0) : undefined;
      bodyLeft = body ? Math.min(64, skip) : 0;
      head = Buffer.alloc(0);
    }
  };
}

/**
 * The server's side of the protocol, message by message across chunk
 * boundaries: a type byte and a length that counts itself; `expectByte` says
 * a bare byte (the answer to an SSLRequest) comes first.
 */
export function serverMessages(on: { ready(): void; commit(): void }) {
  let head: Buffer = Buffer.alloc(0);
  let skip = 0;
  let bare = 0;
  // A CommandComplete's tag, gathered up to its first 7 bytes ("COMMIT\0").
  let tag: Buffer | undefined;
  let tagLeft = 0;
  return {
    expectByte: () => void (bare += 1),
    parse: (chunk: Buffer) => {
      let i = 0;
      while (i < chunk.length) {
        if (bare > 0 && head.length === 0 && skip === 0) {
          bare -= 1;
          i += 1;
          continue;
        }
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - i);
          if (tag && tagLeft > 0) {
            const piece = chunk.subarray(i, i + Math.min(n, tagLeft));
            tag = Buffer.concat([tag, piece]);
            tagLeft -= piece.length;
            if (tagLeft === 0 && tag.toString('latin1') === 'COMMIT\0') on.commit();
          }
          skip -= n;
          i += n;
          continue;
        }
        const take = chunk.subarray(i, i + 5 - head.length);
        head = head.length ? Buffer.concat([head, take]) : take;
        i += take.length;
        if (head.length < 5) return;
        const type = head[0];
        skip = head.readUInt32BE(1) - 4;
        if (type === 0x5a) on.ready();
        // 'C' with a body of exactly "COMMIT\0".
        tag = type === 0x43 && skip === 7 ? Buffer.alloc(0) : undefined;
        tagLeft = tag ? 7 : 0;
        head = Buffer.alloc(0);
      }
    },
  };
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
