import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';

/**
 * The database's own ceiling for the PostgreSQL columns: pgbench, each client
 * committing a one-row upsert of its own row per transaction (a change of the
 * kernel is a transaction that writes at least a row: the closest the
 * database gets to one).
 */

export const UPSERT_TABLE = 'bench_upsert';

/** The pgbench script: one statement, one transaction, on the client's own row. */
export const UPSERT_SCRIPT = `INSERT INTO ${UPSERT_TABLE} (id, n) VALUES (:client_id, 1) ON CONFLICT (id) DO UPDATE SET n = ${UPSERT_TABLE}.n + 1;\n`;

/** pgbench on PATH, else the newest under /usr/lib/postgresql/<version>/bin; undefined when none. */
export function findPgbench(root = '/usr/lib/postgresql'): string | undefined {
  const env = process.env.LEASE_GATE_BENCH_PGBENCH;
  const candidates = env ? [env] : ['pgbench'];
  if (!env && existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join(root, v, 'bin', 'pgbench')));
  }
  return candidates.find((c) => spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0);
}

/**
 * The transactions per second in pgbench's report: the "tps = N (without
 * initial connection time)" line of pgbench 14 and later, or of older ones
 * "tps = N (excluding connections establishing)".
 */
export function parsePgbenchTps(output: string): number {
  const lines = [...output.matchAll(/^tps = ([\d.]+) \(([^)]*)\)/gm)];
  const line =
    lines.find((m) => /without initial connection|excluding connections/.test(m[2]!)) ?? lines[0];
  const tps = Number(line?.[1]);
  if (!line || !Number.isFinite(tps))
    throw new Error(`no "tps = …" line in pgbench's output: ${output.slice(-300)}`);
  return tps;
}

/** The transactions pgbench's report says it processed ("number of transactions actually processed: N"). */
export function parsePgbenchTransactions(output: string): number {
  const line = /^number of transactions actually processed: (\d+)/m.exec(output);
  const count = Number(line?.[1]);
  if (!line || !Number.isSafeInteger(count))
    throw new Error(
      `no "number of transactions actually processed" line in pgbench's output: ${output.slice(-300)}`,
    );
  return count;
}

/** The libpq environment pgbench needs for `url` (a postgres:// URL), in `schema`. */
export function pgbenchEnv(url: string, schema: string): Record<string, string> {
  const u = new URL(url);
  if (!/^postgres(ql)?:$/.test(u.protocol)) throw new Error(`not a postgres:// URL: ${url}`);
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`unsafe schema name ${schema}`);
  return {
    PGHOST: u.hostname,
    PGPORT: u.port || '5432',
    PGDATABASE: decodeURIComponent(u.pathname.slice(1)) || 'postgres',
    ...(u.username ? { PGUSER: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {}),
    PGOPTIONS: `-c search_path=${schema}`,
  };
}

/**
 * pgbench's tps for each client count, `seconds` each, on a table made in
 * `schema` (dropped with the schema by the caller).
 */
export async function pgbenchCeiling(
  binary: string,
  admin: pg.Client,
  url: string,
  schema: string,
  clientCounts: number[],
  seconds: number,
): Promise<Map<number, number>> {
  return withUpserts(binary, admin, schema, async (upserts) => {
    const tps = new Map<number, number>();
    for (const clients of clientCounts)
      tps.set(clients, (await upserts(url, clients, seconds)).tps);
    return tps;
  });
}

/**
 * Runs pgbench's one-row upserts for `clients` for `seconds` on `url`; resolves with its tps
 * and the transactions it processed (exact, where tps × seconds drifts with the machine's load).
 */
export type Upserts = (
  url: string,
  clients: number,
  seconds: number,
) => Promise<{ tps: number; transactions: number }>;

/**
 * Makes the upsert table in `schema` (dropped with the schema by the caller)
 * and pgbench's script, and hands `use` a way to run it.
 */
export async function withUpserts<T>(
  binary: string,
  admin: pg.Client,
  schema: string,
  use: (upserts: Upserts) => Promise<T>,
): Promise<T> {
  await admin.query(
    `CREATE TABLE ${schema}.${UPSERT_TABLE} (id integer PRIMARY KEY, n bigint NOT NULL)`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-pgbench-'));
  try {
    const script = join(dir, 'upsert.sql');
    writeFileSync(script, UPSERT_SCRIPT);
    return await use(async (url, clients, seconds) => {
      const args = ['-n', '-f', script, '-c', String(clients), '-j', String(Math.min(clients, 2))];
      const out = await runPgbench(binary, [...args, '-T', String(seconds)], {
        ...pgbenchEnv(url, schema),
        PATH: process.env.PATH ?? '',
      });
      return { tps: parsePgbenchTps(out), transactions: parsePgbenchTransactions(out) };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runPgbench(binary: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`pgbench exited ${code}: ${out.slice(-300)}`));
    });
  });
}
