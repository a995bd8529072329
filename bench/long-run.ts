import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { Ledger } from '../src/ledger/ledger.js';
import { ledgerLines } from './export.js';
import { runRole, startKernel, type Spawned } from './spawn.js';
import { round, type Row } from './stats.js';

/**
 * Issue #23's long-running kernel: a `--data-prefix` (file) kernel's RSS after
 * 10,000 and after `changes` changes (a change is one ledger entry: a grant or
 * a release; the driver's clients alternate a lease and a release of their own
 * resources, so nothing stays live), the restart to its first answer on that
 * log, and the peak RSS of the CLI's `ledger export` and `verify` of a
 * 200,000-entry ledger.
 */

export const LONG_RUN_CHANGES = Number(process.env.LEASE_GATE_BENCH_CHANGES ?? 1_000_000);
export const LONG_RUN_SECTION = 'long-running kernel (issue #23), `--data-prefix` (file)';
const FIRST = 10_000;
const DRIVERS = 16;
const EXPORT_ENTRIES = 200_000;
const CLI_LIMIT_MS = 300_000;

/**
 * Written into the CLI's process (`--import`): its peak RSS (kB, VmHWM), when it exits. Not
 * `resourceUsage().maxRSS`, which keeps across the exec the RSS of the bench process the CLI
 * was forked from (bench/export-memory.ts).
 */
const PEAK_RSS = `import { readFileSync, writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(process.env.LEASE_GATE_BENCH_RSS_FILE,
  String(Number(/^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]))));`;
const peakRssImport = `data:text/javascript,${encodeURIComponent(PEAK_RSS)}`;

/** A process's resident set in MB (10^6 bytes; Linux /proc), NaN elsewhere. */
export function rssMb(pid: number, status?: string): number {
  let text = status;
  try {
    text ??= readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return Number.NaN;
  }
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(text)?.[1]);
  return Number.isFinite(kb) && kb > 0 ? (kb * 1024) / 1e6 : Number.NaN;
}

/** Spawn to the first lease answered (then released), in ms, and the kernel. */
async function startToFirstAnswer(args: string[]): Promise<{ ms: number; kernel: Spawned }> {
  const began = performance.now();
  const kernel = await startKernel(args);
  try {
    const post = async (path: string) => {
      const res = await request(`${kernel.url}/api/v1/acp/coordination/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ resource: 'lock:long/probe', actorDid: 'did:web:bench:probe' }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${text}`);
    };
    await post('lease');
    const ms = performance.now() - began;
    await post('release');
    return { ms, kernel };
  } catch (error) {
    await kernel.stop();
    throw error;
  }
}

async function drive(url: string, count: number) {
  // At least 300 changes a second, or the run stops (the driver's own bound).
  const limitSeconds = Math.max(120, Math.ceil(count / 300));
  const done = await runRole<{ changes: number; changesPerSecond: number }>(
    'changes',
    [url, String(count), String(DRIVERS), String(limitSeconds)],
    (limitSeconds + 60) * 1000,
  );
  return done;
}

/** The committed CLI with `args`, to completion (bounded), and its peak RSS in MB. */
function cliPeakRss(args: string[], dir: string, name: string): Promise<number> {
  const file = join(dir, `${name}.rss`);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', peakRssImport, 'dist/cli/index.js', ...args],
      {
        env: { ...process.env, LEASE_GATE_BENCH_RSS_FILE: file },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-500)));
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_LIMIT_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code !== 0)
        return reject(new Error(`lease-gate ${args.join(' ')} exited ${code}: ${said}`));
      resolve((Number(readFileSync(file, 'utf8')) * 1024) / 1e6);
    });
  });
}

export interface LongRunResult {
  changes: number;
  changesPerSecond: number;
  rssStartMb: number;
  rssFirstMb: number;
  rssAfterMb: number;
  emptyStartMs: number;
  restartMs: number;
  logMb: number;
  exportEntries: number;
  bundleMb: number;
  exportPeakRssMb: number;
  verifyPeakRssMb: number;
}

export async function longRun(
  changes: number,
  log: (line: string) => void,
): Promise<LongRunResult> {
  if (!Number.isSafeInteger(changes) || changes < 2 * FIRST)
    throw new Error(`LEASE_GATE_BENCH_CHANGES must be a whole number ≥ ${2 * FIRST}: ${changes}`);
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-long-'));
  const kernels: Spawned[] = [];
  try {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const key = join(dir, 'ledger.key');
    writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const args = ['--data-prefix', join(dir, 'long'), '--signing-key', key];
    const empty = await startToFirstAnswer(args);
    kernels.push(empty.kernel);
    const rssStartMb = rssMb(empty.kernel.pid);
    log(`long run: ${FIRST} changes …`);
    await drive(empty.kernel.url, FIRST);
    const rssFirstMb = rssMb(empty.kernel.pid);
    log(`long run: ${changes - FIRST} more changes (LEASE_GATE_BENCH_CHANGES=${changes}) …`);
    const rest = await drive(empty.kernel.url, changes - FIRST);
    const rssAfterMb = rssMb(empty.kernel.pid);
    await empty.kernel.stop();
    const logMb = statSync(join(dir, 'long.ledger.jsonl')).size / 1e6;
    log('long run: restart …');
    const again = await startToFirstAnswer(args);
    kernels.push(again.kernel);
    await again.kernel.stop();

    log(`long run: export and verify of ${EXPORT_ENTRIES} entries …`);
    const ledgerFile = join(dir, 'export.ledger.jsonl');
    writeFileSync(ledgerFile, ledgerLines(EXPORT_ENTRIES, new Ledger(privateKey)));
    const served = await startKernel(['--ledger', ledgerFile, '--signing-key', key]);
    kernels.push(served);
    const bundle = join(dir, 'bundle.json');
    let exportPeakRssMb: number;
    try {
      exportPeakRssMb = await cliPeakRss(
        ['ledger', 'export', '--url', served.url, '--out', bundle],
        dir,
        'export',
      );
    } finally {
      await served.stop();
    }
    const pub = join(dir, 'ledger.pub');
    writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
    const verifyPeakRssMb = await cliPeakRss(
      ['verify', bundle, '--public-key', pub],
      dir,
      'verify',
    );
    return {
      changes: FIRST + rest.changes,
      changesPerSecond: rest.changesPerSecond,
      rssStartMb,
      rssFirstMb,
      rssAfterMb,
      emptyStartMs: empty.ms,
      restartMs: again.ms,
      logMb,
      exportEntries: EXPORT_ENTRIES,
      bundleMb: statSync(bundle).size / 1e6,
      exportPeakRssMb,
      verifyPeakRssMb,
    };
  } finally {
    await Promise.all(kernels.map((k) => k.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Adds a figure of `section` to `rows`, rounded as the page shows it, with its target when it has one. */
function rowsOf(section: string, rows: Row[]) {
  return (metric: string, value: number, unit: string, target?: string, ok?: boolean) =>
    rows.push({
      section,
      metric,
      value: round(value, value < 10 ? 2 : 1),
      unit,
      ...(target ? { target, ok: ok ?? false } : {}),
    });
}

/** The long run as rows of the page, with issue #23's targets. */
export function longRunRows(r: LongRunResult): Row[] {
  const rows: Row[] = [];
  const add = rowsOf(LONG_RUN_SECTION, rows);
  const n = r.changes.toLocaleString('en-US');
  add('changes written (ledger entries: grants and releases)', r.changes, '');
  add('changes per second while writing them', r.changesPerSecond, '/s');
  add('RSS at start', r.rssStartMb, 'MB');
  add(`RSS after ${FIRST.toLocaleString('en-US')} changes`, r.rssFirstMb, 'MB');
  add(`RSS after ${n} changes`, r.rssAfterMb, 'MB');
  const ratio = r.rssAfterMb / r.rssFirstMb;
  add(`RSS after ${n} / after ${FIRST.toLocaleString('en-US')}`, ratio, '×', '≤ 2', ratio <= 2);
  add(`log file after ${n} changes`, r.logMb, 'MB');
  add('empty start to the first answer', r.emptyStartMs, 'ms');
  add(
    `restart on ${n} changes to the first answer`,
    r.restartMs,
    'ms',
    '≤ 1000',
    r.restartMs <= 1000,
  );
  const e = r.exportEntries.toLocaleString('en-US');
  add(
    `ledger export of ${e} entries (${round(r.bundleMb, 0)} MB bundle): peak RSS`,
    r.exportPeakRssMb,
    'MB',
    '≤ 256',
    r.exportPeakRssMb <= 256,
  );
  add(
    `verify of the ${e} entries: peak RSS`,
    r.verifyPeakRssMb,
    'MB',
    '≤ 256',
    r.verifyPeakRssMb <= 256,
  );
  return rows;
}

export const PG_LONG_RUN_CHANGES = Number(process.env.LEASE_GATE_BENCH_PG_CHANGES ?? 200_000);
export const PG_LONG_RUN_SECTION = 'long-running replica (issue #23), PostgreSQL';

export interface PostgresLongRunResult {
  changes: number;
  changesPerSecond: number;
  rssStartMb: number;
  rssFirstMb: number;
  rssAfterMb: number;
  /** The replica's RSS after it served an export of the whole ledger. */
  rssAfterExportMb: number;
  exportMb: number;
  restartMs: number;
  /** The same restart with the tree's saved frontier removed: every row read. */
  restartFromRowsMs: number;
}

/**
 * A PostgreSQL replica (the committed CLI) written `changes` times, as the
 * file kernel above: its RSS after 10,000 and after all of them, and after it
 * served an export of its whole ledger (its lines stay in the database); then
 * a restart to the first answer, from the tree's saved frontier and, with the
 * frontier removed, from every row.
 */
export async function longRunPostgres(
  url: string,
  changes: number,
  log: (line: string) => void,
): Promise<PostgresLongRunResult> {
  if (!Number.isSafeInteger(changes) || changes < 2 * FIRST)
    throw new Error(
      `LEASE_GATE_BENCH_PG_CHANGES must be a whole number ≥ ${2 * FIRST}: ${changes}`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-pg-long-'));
  const schema = `lease_gate_bench_long_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  admin.on('error', () => undefined);
  await admin.connect();
  const kernels: Spawned[] = [];
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
    const { privateKey } = generateKeyPairSync('ed25519');
    const key = join(dir, 'ledger.key');
    writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const args = ['--store', url, '--schema', schema, '--signing-key', key, '--pool-size', '10'];
    const first = await startToFirstAnswer(args);
    kernels.push(first.kernel);
    const rssStartMb = rssMb(first.kernel.pid);
    log(`long run, PostgreSQL: ${FIRST} changes …`);
    await drive(first.kernel.url, FIRST);
    const rssFirstMb = rssMb(first.kernel.pid);
    log(`long run, PostgreSQL: ${changes - FIRST} more (LEASE_GATE_BENCH_PG_CHANGES=${changes}) …`);
    const rest = await drive(first.kernel.url, changes - FIRST);
    const rssAfterMb = rssMb(first.kernel.pid);
    log('long run, PostgreSQL: export …');
    const bundle = join(dir, 'bundle.json');
    await cliPeakRss(['ledger', 'export', '--url', first.kernel.url, '--out', bundle], dir, 'pg');
    const rssAfterExportMb = rssMb(first.kernel.pid);
    await first.kernel.stop();
    log('long run, PostgreSQL: restarts …');
    const again = await startToFirstAnswer(args);
    kernels.push(again.kernel);
    await again.kernel.stop();
    await admin.query(`DELETE FROM ${schema}.lease_gate_tree`);
    const fromRows = await startToFirstAnswer(args);
    kernels.push(fromRows.kernel);
    await fromRows.kernel.stop();
    return {
      changes: FIRST + rest.changes,
      changesPerSecond: rest.changesPerSecond,
      rssStartMb,
      rssFirstMb,
      rssAfterMb,
      rssAfterExportMb,
      exportMb: statSync(bundle).size / 1e6,
      restartMs: again.ms,
      restartFromRowsMs: fromRows.ms,
    };
  } finally {
    await Promise.all(kernels.map((k) => k.stop()));
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The PostgreSQL long run as rows of the page. */
export function postgresLongRunRows(r: PostgresLongRunResult): Row[] {
  const rows: Row[] = [];
  const add = rowsOf(PG_LONG_RUN_SECTION, rows);
  const n = r.changes.toLocaleString('en-US');
  const first = FIRST.toLocaleString('en-US');
  add('changes written (ledger entries: grants and releases)', r.changes, '');
  add('changes per second while writing them', r.changesPerSecond, '/s');
  add('replica RSS at start', r.rssStartMb, 'MB');
  add(`replica RSS after ${first} changes`, r.rssFirstMb, 'MB');
  add(`replica RSS after ${n} changes`, r.rssAfterMb, 'MB');
  const ratio = r.rssAfterMb / r.rssFirstMb;
  add(`replica RSS after ${n} / after ${first}`, ratio, '×', '≤ 2', ratio <= 2);
  add(
    `replica RSS after serving an export of all ${n} (${round(r.exportMb, 0)} MB bundle)`,
    r.rssAfterExportMb,
    'MB',
  );
  add(`restart on ${n} changes to the first answer, from the saved frontier`, r.restartMs, 'ms');
  add(`the same restart from every row (frontier removed)`, r.restartFromRowsMs, 'ms');
  return rows;
}
