import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ledger } from '../src/ledger/ledger.js';
import { ledgerLines } from './export.js';
import { startKernel } from './spawn.js';
import { round, type Row } from './stats.js';

/**
 * Issue #59, item 4: `lease-gate ledger export` and `verify` (the committed CLI, each in its
 * own process) of a 200,000 and a 1,000,000-entry ledger, in one run: each one's peak RSS
 * beside the ≤ 100 MiB goal, and its time per entry, whose ratio between the two sizes
 * says whether the time is linear (1 when it is; the proofs grow with log n, 20 / 17.6
 * levels, so 1.14 is the most a proof-bound check may show).
 */

export const EXPORT_MEMORY_SECTION = 'ledger export and verify (issue #59), memory and time';
const SIZES = [200_000, 1_000_000];
const GOAL_MIB = 100;
/** Per-entry time at the larger size over the smaller: linear within this. */
const LINEAR_WITHIN = 1.25;
/** A 1M-entry kernel reads its log before it listens. */
const KERNEL_START_MS = 180_000;
const CLI_LIMIT_MS = 900_000;

/**
 * Written into the CLI's process (`--import`): its peak RSS (kB) and CPU time (µs), when it
 * exits. The peak is VmHWM, its own memory's high-water mark: `resourceUsage().maxRSS`
 * keeps, across the exec that starts the CLI, the RSS of the bench process it was forked
 * from (which holds the 1M-entry ledger it just wrote: 286 "MiB" for an export that peaked
 * at 102).
 */
const PEAK_RSS = `import { readFileSync, writeFileSync } from 'node:fs';
process.on('exit', () => { const u = process.resourceUsage();
  const hwm = Number(/^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  writeFileSync(process.env.LEASE_GATE_BENCH_RSS_FILE, JSON.stringify([hwm, u.userCPUTime + u.systemCPUTime])); });`;
const peakRssImport = `data:text/javascript,${encodeURIComponent(PEAK_RSS)}`;

interface Run {
  peakMib: number;
  seconds: number;
  cpuSeconds: number;
}

/** The committed CLI with `args`, to completion (bounded): its peak RSS in MiB and its wall time. */
function cliRun(args: string[], rssFile: string): Promise<Run> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', peakRssImport, 'dist/cli/index.js', ...args],
      {
        env: { ...process.env, LEASE_GATE_BENCH_RSS_FILE: rssFile },
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
      const [kb, cpuUs] = JSON.parse(readFileSync(rssFile, 'utf8')) as [number, number];
      resolve({
        peakMib: kb / 1024,
        seconds: (performance.now() - began) / 1000,
        cpuSeconds: cpuUs / 1e6,
      });
    });
  });
}

interface SizeResult {
  entries: number;
  bundleMb: number;
  exported: Run;
  verified: Run;
}

/** Export (from a `--ledger` kernel of `entries`) and verify, one after the other. */
async function oneSize(entries: number, log: (line: string) => void): Promise<SizeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-export-'));
  try {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keyFile = join(dir, 'ledger.key');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const pub = join(dir, 'ledger.pub');
    writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
    const logFile = join(dir, 'ledger.jsonl');
    log(`export and verify: writing a ledger of ${entries} entries …`);
    writeFileSync(logFile, ledgerLines(entries, new Ledger(privateKey)));
    const kernel = await startKernel(['--ledger', logFile, '--signing-key', keyFile], [], {
      limitMs: KERNEL_START_MS,
    });
    const bundle = join(dir, 'bundle.json');
    let exported: Run;
    try {
      log(`export and verify: ledger export of ${entries} entries …`);
      exported = await cliRun(
        ['ledger', 'export', '--url', kernel.url, '--out', bundle],
        join(dir, 'export.rss'),
      );
    } finally {
      await kernel.stop();
    }
    log(`export and verify: verify of ${entries} entries …`);
    const verified = await cliRun(['verify', bundle, '--public-key', pub], join(dir, 'verify.rss'));
    return { entries, bundleMb: statSync(bundle).size / 1e6, exported, verified };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Both sizes, smaller first, and their rows. */
export async function exportMemory(log: (line: string) => void): Promise<Row[]> {
  const results: SizeResult[] = [];
  for (const entries of SIZES) results.push(await oneSize(entries, log));
  const rows: Row[] = [];
  const add = (metric: string, value: number, unit: string, target?: string, ok?: boolean) =>
    rows.push({
      section: EXPORT_MEMORY_SECTION,
      metric,
      value: round(value, value < 10 ? 2 : 1),
      unit,
      ...(target ? { target, ok: ok ?? false } : {}),
    });
  const perEntryUs = (run: Run, entries: number) => (run.seconds * 1e6) / entries;
  // CPU time: the wall time of a loaded machine measures the other work too.
  const cpuPerEntryUs = (run: Run, entries: number) => (run.cpuSeconds * 1e6) / entries;
  for (const r of results) {
    const e = r.entries.toLocaleString('en-US');
    add(`${e} entries: bundle`, r.bundleMb, 'MB');
    for (const [name, run] of [
      ['ledger export', r.exported],
      ['verify', r.verified],
    ] as const) {
      const ok = run.peakMib <= GOAL_MIB;
      add(`${e} entries: ${name} peak RSS`, run.peakMib, 'MiB', `≤ ${GOAL_MIB}`, ok);
      add(`${e} entries: ${name} time per entry`, perEntryUs(run, r.entries), 'µs');
      add(`${e} entries: ${name} CPU per entry`, cpuPerEntryUs(run, r.entries), 'µs');
    }
  }
  const [small, large] = results as [SizeResult, SizeResult];
  for (const name of ['exported', 'verified'] as const) {
    const label = name === 'exported' ? 'ledger export' : 'verify';
    const wall = perEntryUs(large[name], large.entries) / perEntryUs(small[name], small.entries);
    add(`${label}: time per entry at 1,000,000 / at 200,000`, wall, '×');
    const cpu =
      cpuPerEntryUs(large[name], large.entries) / cpuPerEntryUs(small[name], small.entries);
    const linear = `≤ ${LINEAR_WITHIN}`;
    add(
      `${label}: CPU per entry at 1,000,000 / at 200,000`,
      cpu,
      '×',
      linear,
      cpu <= LINEAR_WITHIN,
    );
  }
  return rows;
}
