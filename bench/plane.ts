import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { CycleResult } from './cycles.js';
import { etcdMissing, startEtcd } from './etcd.js';
import { findPgbench, pgbenchCeiling } from './pgbench.js';
import { URL, handover, run, startReplica, stopped } from './postgres.js';
import { runRole, startKernel } from './spawn.js';
import {
  LONG_RUN_CHANGES,
  LONG_RUN_SECTION,
  PG_LONG_RUN_CHANGES,
  PG_LONG_RUN_SECTION,
  longRun,
  longRunPostgres,
  longRunRows,
  postgresLongRunRows,
  type PostgresLongRunResult,
  type LongRunResult,
} from './long-run.js';
import { round, type Row } from './stats.js';
import { causeText } from '../src/errors.js';

/**
 * Issue #23's plane table, from one run: lease + release cycles per second of
 * the kernel (memory, file log), the kernel on PostgreSQL with 1, 2 and 3
 * replicas, and etcd 3.4, for 1, 16 and 64 clients on resources of their own
 * and 64 clients over 8 shared resources; pgbench's one-row upserts as the
 * database's ceiling; and the handover across replicas.
 */

export const PLANE_ROWS = [
  { label: '1', clients: 1, resources: 1 },
  { label: '16', clients: 16, resources: 16 },
  { label: '64', clients: 64, resources: 64 },
  { label: '64, 8 shared resources', clients: 64, resources: 8 },
] as const;

export const PLANE_COLUMNS = [
  'kernel, memory',
  'kernel, `--data-prefix` (file)',
  'PostgreSQL, 1 replica',
  '2 replicas',
  '3 replicas',
  'etcd 3.4 (lease grant + txn put + lease revoke)',
  'pgbench, one-row upsert per transaction',
] as const;

type Column = (typeof PLANE_COLUMNS)[number];
/** A cell: a measurement, or why there is none. */
export type Cell = CycleResult | { tps: number } | { skipped: string };
export type PlaneCells = Partial<Record<Column, (Cell | undefined)[]>>;

const SECONDS = Number(process.env.LEASE_GATE_BENCH_PLANE_SECONDS ?? 5);
const HANDOVERS = 100;
export const PLANE_SECTION = 'plane (issue #23): PostgreSQL and etcd';

const whole = (n: number) => Math.round(n).toLocaleString('en-US');

/** One cell of the markdown table. */
export function cellText(cell: Cell | undefined, shared: boolean): string {
  if (!cell) return '—';
  if ('skipped' in cell) return 'skipped';
  if ('tps' in cell) return `${whole(cell.tps)} tps`;
  const p99 = shared ? ` (p99 ${round(cell.p99Ms, cell.p99Ms < 10 ? 1 : 0)} ms)` : '';
  const errors = cell.errors ? `, ${cell.errors} errors` : '';
  return `${whole(cell.cyclesPerSecond)} /s${p99}${errors}`;
}

/** The table, one row per client count, and a line for each column that was skipped. */
export function planeTable(cells: PlaneCells): string {
  const lines = [
    `| clients | ${PLANE_COLUMNS.join(' | ')} |`,
    `|---|${PLANE_COLUMNS.map(() => '---:').join('|')}|`,
  ];
  PLANE_ROWS.forEach((row, i) => {
    const shared = row.resources < row.clients;
    lines.push(
      `| ${row.label} | ${PLANE_COLUMNS.map((c) => cellText(cells[c]?.[i], shared)).join(' | ')} |`,
    );
  });
  const skipped = new Map<string, string[]>();
  for (const c of PLANE_COLUMNS) {
    const why = cells[c]?.find(
      (cell): cell is { skipped: string } => !!cell && 'skipped' in cell,
    )?.skipped;
    if (why) skipped.set(why, [...(skipped.get(why) ?? []), c]);
  }
  for (const [why, columns] of skipped) lines.push('', `Skipped (${columns.join(', ')}): ${why}.`);
  return lines.join('\n');
}

/** A cycle load on `urls` in a process of its own. */
const cyclesOn = (plane: 'kernel' | 'etcd', urls: string[], clients: number, resources: number) =>
  runRole<CycleResult>(
    'cycles',
    [JSON.stringify({ plane, urls, clients, resources, seconds: SECONDS })],
    (SECONDS + 60) * 1000,
  );

async function everyRow(plane: 'kernel' | 'etcd', urls: string[], log: (l: string) => void) {
  const cells: Cell[] = [];
  for (const row of PLANE_ROWS) {
    cells.push(await cyclesOn(plane, urls, row.clients, row.resources));
    log(`  ${row.label} clients: ${cellText(cells.at(-1), row.resources < row.clients)}`);
  }
  return cells;
}

const skippedRows = (why: string): Cell[] => PLANE_ROWS.map(() => ({ skipped: why }));

export interface PlaneResult {
  cells: PlaneCells;
  handover?: { replicas: number; rounds: number; p50Ms: number; p99Ms: number }[];
  table: string;
  rows: Row[];
}

/**
 * A column's cells, or, when measuring it failed, why in each (the rest of the
 * table is still measured and printed; the line under the table names the error).
 */
async function orFailed(
  column: string,
  log: (line: string) => void,
  measure: () => Promise<(Cell | undefined)[]>,
): Promise<(Cell | undefined)[]> {
  try {
    return await measure();
  } catch (error) {
    log(`  ${column} failed: ${causeText(error)}`);
    return skippedRows(`failed: ${causeText(error).slice(0, 300)}`);
  }
}

/** A kernel of the committed CLI with `args`, measured for every row, then stopped. */
async function kernelColumn(args: string[], log: (line: string) => void) {
  const kernel = await startKernel(args);
  try {
    return await everyRow('kernel', [kernel.url], log);
  } finally {
    await kernel.stop();
  }
}

export async function planeBench(
  log: (line: string) => void,
  only?: 'postgres',
): Promise<PlaneResult> {
  const cells: PlaneCells = {};
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-plane-'));
  const hand: NonNullable<PlaneResult['handover']> = [];
  try {
    if (only === 'postgres') {
      await postgresColumns(cells, hand, dir, log);
      return { cells, handover: hand, table: planeTable(cells), rows: planeTargets(cells, hand) };
    }
    log('plane: kernel, memory …');
    const memory = 'kernel, memory';
    cells[memory] = await orFailed(memory, log, () => kernelColumn([], log));
    log('plane: kernel, --data-prefix (file) …');
    const file = 'kernel, `--data-prefix` (file)';
    const prefix = ['--data-prefix', join(dir, 'plane')];
    cells[file] = await orFailed(file, log, () => kernelColumn(prefix, log));
    await postgresColumns(cells, hand, dir, log);
    const etcdColumn = 'etcd 3.4 (lease grant + txn put + lease revoke)';
    const noEtcd = etcdMissing();
    if (noEtcd) cells[etcdColumn] = skippedRows(noEtcd);
    else {
      log('plane: etcd …');
      cells[etcdColumn] = await orFailed(etcdColumn, log, async () => {
        const etcd = await startEtcd();
        try {
          return await everyRow('etcd', [etcd.url], log);
        } finally {
          await etcd.stop();
        }
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { cells, handover: hand, table: planeTable(cells), rows: planeTargets(cells, hand) };
}

/** The PostgreSQL columns and pgbench, each replica count on a schema of its own, dropped after. */
async function postgresColumns(
  cells: PlaneCells,
  hand: NonNullable<PlaneResult['handover']>,
  dir: string,
  log: (line: string) => void,
) {
  const admin = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 2_000 });
  admin.on('error', () => undefined);
  try {
    await admin.connect();
  } catch (error) {
    const why = `no PostgreSQL at ${URL}: ${causeText(error)}`;
    for (const c of PLANE_COLUMNS.slice(2, 5)) cells[c] = skippedRows(why);
    cells['pgbench, one-row upsert per transaction'] = skippedRows(why);
    return;
  }
  const schemas: string[] = [];
  const children: ChildProcess[] = [];
  try {
    await run(['keygen', '--out', dir]);
    for (const [count, column] of [
      [1, 'PostgreSQL, 1 replica'],
      [2, '2 replicas'],
      [3, '3 replicas'],
    ] as const) {
      log(`plane: PostgreSQL, ${count} replica(s) …`);
      cells[column] = await orFailed(column, log, async () => {
        const schema = `lease_gate_bench_${randomBytes(4).toString('hex')}`;
        schemas.push(schema);
        await admin.query(`CREATE SCHEMA ${schema}`);
        await checkpoint(admin);
        const replicas = [];
        try {
          for (let i = 0; i < count; i += 1) {
            const replica = await startReplica(schema, join(dir, 'ledger.key'));
            children.push(replica.child);
            replicas.push(replica);
          }
          const urls = replicas.map((r) => r.url);
          const measured = await everyRow('kernel', urls, log);
          if (count <= 2) {
            // Released on the first replica, the waiter held on the last (the same one with one replica).
            const h = await handover(urls[0]!, urls.at(-1)!, HANDOVERS);
            hand.push({ replicas: count, ...h });
            log(
              `  handover, ${count} replica(s): p50 ${round(h.p50Ms)} ms, p99 ${round(h.p99Ms)} ms`,
            );
          }
          return measured;
        } finally {
          // Gone before the next column starts, so their exit costs it nothing (bounded).
          await Promise.all(replicas.map((r) => stopped(r.child)));
        }
      });
    }
    const pgbench = findPgbench();
    if (!pgbench)
      cells['pgbench, one-row upsert per transaction'] = skippedRows(
        'no pgbench on PATH or under /usr/lib/postgresql/*/bin (Debian package postgresql-client)',
      );
    else {
      log(`plane: ${pgbench}, one-row upserts …`);
      const schema = `lease_gate_bench_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      await admin.query(`CREATE SCHEMA ${schema}`);
      const owned = PLANE_ROWS.filter((r) => r.resources === r.clients).map((r) => r.clients);
      await checkpoint(admin);
      const ceiling = 'pgbench, one-row upsert per transaction';
      cells[ceiling] = await orFailed(ceiling, log, async () => {
        // At least 3 s: 64 clients connecting take a while, and -T counts that time.
        const seconds = Math.max(SECONDS, 3);
        const tps = await pgbenchCeiling(pgbench, admin, URL, schema, owned, seconds);
        return PLANE_ROWS.map((r) =>
          r.resources === r.clients ? { tps: tps.get(r.clients)! } : undefined,
        );
      });
    }
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    for (const schema of schemas)
      await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
  }
}

/**
 * Each column starts on a fresh checkpoint, so none runs into one that the
 * columns before it made due (pgbench's ceiling moved from 9,900 to 17,800
 * tps between runs without it). A role that may not checkpoint skips it.
 */
async function checkpoint(admin: pg.Client): Promise<void> {
  await admin.query('CHECKPOINT').catch(() => undefined);
}

const rate = (cell: Cell | undefined) =>
  cell && 'cyclesPerSecond' in cell ? cell.cyclesPerSecond : undefined;

/** Issue #23's targets for the plane, as rows of the page (16 clients, own resources). */
export function planeTargets(cells: PlaneCells, hand: NonNullable<PlaneResult['handover']>) {
  const rows: Row[] = [];
  const S = PLANE_SECTION;
  const add = (
    metric: string,
    value: number | string,
    unit: string,
    target?: string,
    ok?: boolean,
  ) =>
    rows.push({
      section: S,
      metric,
      value: typeof value === 'number' ? round(value, value < 10 ? 2 : 1) : value,
      unit,
      ...(target && typeof value === 'number' ? { target, ok: ok ?? false } : {}),
      pageOnly: true,
    });
  const at16 = PLANE_ROWS.findIndex((r) => r.clients === 16);
  const one = rate(cells['PostgreSQL, 1 replica']?.[at16]);
  const pgbench = cells['pgbench, one-row upsert per transaction']?.[at16];
  const etcd = rate(cells['etcd 3.4 (lease grant + txn put + lease revoke)']?.[at16]);
  const why = (cell: Cell | undefined) =>
    cell && 'skipped' in cell ? `skipped: ${cell.skipped}` : 'skipped';
  if (one === undefined)
    add('1 replica, 16 clients', why(cells['PostgreSQL, 1 replica']?.[at16]), '');
  else {
    if (pgbench && 'tps' in pgbench) {
      // A cycle is two changes, each its own committed transaction: compared with pgbench's transactions.
      const r = (2 * one) / pgbench.tps;
      add('1 replica, 16 clients: changes/s (2 a cycle) / pgbench tps', r, '×', '≥ 0.5', r >= 0.5);
    } else add('1 replica, 16 clients / pgbench', why(pgbench), '');
    if (etcd === undefined)
      add(
        '1 replica, 16 clients / etcd',
        why(cells['etcd 3.4 (lease grant + txn put + lease revoke)']?.[at16]),
        '',
      );
    else
      add('1 replica, 16 clients: cycles / etcd cycles', one / etcd, '×', '≥ 1', one / etcd >= 1);
    for (const column of ['2 replicas', '3 replicas'] as const) {
      const more = rate(cells[column]?.[at16]);
      if (more !== undefined)
        add(`${column} / 1 replica, 16 clients`, more / one, '×', '≥ 0.9', more / one >= 0.9);
    }
  }
  for (const h of hand) {
    const label =
      h.replicas > 1
        ? `handover across replicas (release on A, held acquire on B), ${h.rounds} rounds`
        : `handover on 1 replica (held acquire), ${h.rounds} rounds`;
    add(`${label}: p50`, h.p50Ms, 'ms');
    if (h.replicas > 1) add(`${label}: p99`, h.p99Ms, 'ms', '≤ 20', h.p99Ms <= 20);
    else add(`${label}: p99`, h.p99Ms, 'ms');
  }
  return rows;
}

/** The page's section for the table: what was measured, how, and the table. */
export function planeMarkdown(table: string, changes: number): string {
  return `## The plane side by side (issue #23)

Lease + release cycles per second, each column in its own process(es) on this machine, one
after another in the same run, ${SECONDS} s each after 1 s not counted. The load is
\`clients\` keep-alive undici clients in a process of their own, client i on replica i mod n,
each cycling on a resource of its own, or, in the last row, 64 clients over 8 resources:
there a kernel lease is a blocking acquire (\`Prefer: wait=10\`, held until granted) and
p99 is a cycle's time from its lease sent to its release answered, waiting included. The
PostgreSQL replicas are the committed CLI (\`--store postgres --pool-size 10\`) on one
database, a fresh schema per column. etcd 3.4 is Debian's \`etcd-server\`, one member on
loopback (its WAL fsynced on the same disk as the file kernel's log), driven through its v3
HTTP/JSON gateway by the same client: a cycle is \`/v3/lease/grant\` (TTL 30 s),
\`/v3/kv/txn\` putting the key with that lease if its create_revision is 0, and
\`/v3/lease/revoke\` (which deletes the key); etcd holds no request, so with shared
resources a loser asks again after 2 ms. pgbench is the database's ceiling: each client
commits \`INSERT … ON CONFLICT (id) DO UPDATE\` of its own row, one transaction each, for
the same ${SECONDS} s. A kernel cycle is two changes, each committed on its own, so the
target compares 2 × cycles/s with pgbench's transactions/s. Handover across replicas: a
holder releases on replica A while the next one's lease request is held on replica B;
timed from the release sent to the grant answered (${HANDOVERS} rounds).

${table}

The long-running kernel (its rows below): a \`--data-prefix\` kernel written ${changes.toLocaleString('en-US')}
times (\`LEASE_GATE_BENCH_CHANGES\`); a change is one ledger entry, a grant or a release, made
by 16 keep-alive clients alternating a lease and a release of their own resources. RSS is
the kernel's VmRSS; the restart is from spawning the process to its first lease answered;
export and verify are the committed CLI on a 200,000-entry ledger, their peak RSS
(\`process.resourceUsage().maxRSS\`) written as they exit. The long-running PostgreSQL replica
(its rows below the file kernel's): one replica of the committed CLI written
${PG_LONG_RUN_CHANGES.toLocaleString('en-US')} times (\`LEASE_GATE_BENCH_PG_CHANGES\`) by the
same clients, its RSS then and after it served \`ledger export\` of its whole ledger, and a
restart to the first answer from the ledger tree's saved frontier, then again with the
frontier removed.`;
}

export interface PlanePart {
  markdown: string;
  rows: Row[];
  raw: {
    plane: PlaneResult;
    longRun: LongRunResult | { failed: string };
    postgresLongRun: PostgresLongRunResult | { failed: string };
  };
}

/** The plane table and the long-running kernel, as the page shows them. */
export async function planePart(
  log: (line: string) => void,
  changes = LONG_RUN_CHANGES,
): Promise<PlanePart> {
  const plane = await planeBench(log);
  let long: LongRunResult | { failed: string };
  try {
    long = await longRun(changes, log);
  } catch (error) {
    // The table is still printed; the page says the long run failed, and why.
    long = { failed: causeText(error).slice(0, 300) };
    log(`long run failed: ${long.failed}`);
  }
  const longRows: Row[] =
    'failed' in long
      ? [
          {
            section: LONG_RUN_SECTION,
            metric: 'long run',
            value: `failed: ${long.failed}`,
            unit: '',
          },
        ]
      : longRunRows(long);
  const { rows: pgRows, result: pgLong } = await postgresLongPart(log);
  const rows = [...plane.rows, ...[...longRows, ...pgRows].map((r) => ({ ...r, pageOnly: true }))];
  return {
    markdown: planeMarkdown(plane.table, 'failed' in long ? changes : long.changes),
    rows,
    raw: { plane, longRun: long, postgresLongRun: pgLong },
  };
}

/** The PostgreSQL replica's long run as rows, or one row saying why there is none. */
export async function postgresLongPart(log: (line: string) => void) {
  let result: PostgresLongRunResult | { failed: string };
  try {
    result = await longRunPostgres(URL, PG_LONG_RUN_CHANGES, log);
  } catch (error) {
    result = { failed: causeText(error).slice(0, 300) };
    log(`long run, PostgreSQL, failed: ${result.failed}`);
  }
  const rows: Row[] =
    'failed' in result
      ? [
          {
            section: PG_LONG_RUN_SECTION,
            metric: 'long run',
            value: `failed: ${result.failed}`,
            unit: '',
          },
        ]
      : postgresLongRunRows(result);
  return { rows, result };
}
