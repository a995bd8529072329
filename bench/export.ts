import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { Ledger, type NewEntry } from '../src/ledger/ledger.js';
import { startKernel } from './spawn.js';
import { max, percentile } from './stats.js';

const RENEWERS = 12;
const RENEW_EVERY_MS = 20;
const BASELINE_MS = 2_000;
const EXPORT_LIMIT_MS = 90_000;

/** A valid history of `entries` (grant, release, …) on distinct resources, as log lines. */
export function ledgerLines(entries: number, ledger: Ledger): string {
  const started = Date.now() - entries;
  let text = '';
  for (let i = 0; i < entries / 2; i += 1000) {
    const events: NewEntry[] = [];
    for (let j = i; j < Math.min(entries / 2, i + 1000); j += 1) {
      const common = {
        resource: `lock:fill/${j}`,
        actorDid: `did:web:bench:fill${j % 64}`,
        leaseId: `lease_fill_${j}`,
        fence: j + 1,
      };
      const atMs = started + 2 * j;
      events.push({ ...common, kind: 'grant', atMs, expiresAtMs: atMs + 30_000 });
      events.push({ ...common, kind: 'release', atMs: atMs + 1 });
    }
    const prepared = ledger.prepare(events);
    ledger.accept(prepared.entries, prepared.lines);
    text += prepared.text;
  }
  return text;
}

/**
 * Preloaded into the kernel's process (`--import`), so the committed kernel runs unchanged:
 * a 1 ms timer's lateness, the longest of which bounds any event-loop block (within 1 ms;
 * on a busy machine it also counts time the process waited for a core), and the longest
 * garbage-collection pause.
 * SIGUSR2 starts the measured phase; the figures are written when the kernel exits.
 */
const LOOP_MONITOR = `
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
let gcMaxMs = 0;
new PerformanceObserver((list) => {
  for (const gc of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, gc.duration);
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR2', () => { delay.reset(); gcMaxMs = 0; });
process.on('exit', () => writeFileSync(process.env.LEASE_GATE_BENCH_LOOP_FILE, JSON.stringify({
  maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6, gcMaxMs,
})));`;
const loopMonitorImport = `data:text/javascript,${encodeURIComponent(LOOP_MONITOR)}`;

interface LoopDelay {
  maxMs: number;
  p99Ms: number;
  gcMaxMs: number;
}

/**
 * `lease-gate ledger export` of an `entries`-long ledger (pages followed from
 * the committed CLI, in its own process) while 12 clients renew their leases
 * every 20 ms: their renewal latency before and during the export, and the
 * kernel's own event-loop delay during the export.
 */
export async function exportBesideRenewals(entries = 200_000, log: (line: string) => void) {
  // tmpfs when there is one, so the renewals' fdatasync measures no disk.
  const dir = mkdtempSync(
    join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'lease-gate-export-'),
  );
  try {
    const { privateKey } = generateKeyPairSync('ed25519');
    const keyFile = join(dir, 'key.pem');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const logFile = join(dir, 'ledger.jsonl');
    writeFileSync(logFile, ledgerLines(entries, new Ledger(privateKey)));
    const loopFile = join(dir, 'loop.json');
    process.env.LEASE_GATE_BENCH_LOOP_FILE = loopFile;
    const kernel = await startKernel(
      ['--ledger', logFile, '--signing-key', keyFile],
      ['--import', loopMonitorImport],
    );
    const pool = new Pool(kernel.url, { connections: RENEWERS });
    const before: number[] = [];
    const during: number[] = [];
    let phase: number[] | undefined = before;
    let failures = 0;
    const renewers = Array.from({ length: RENEWERS }, async (_, c) => {
      const body = JSON.stringify({ resource: `lock:renew/${c}`, actorDid: `did:web:bench:r${c}` });
      while (phase) {
        const into = phase;
        const sent = performance.now();
        const res = await pool.request({
          method: 'POST',
          path: '/api/v1/acp/coordination/lease',
          body,
          headers: { 'content-type': 'application/json' },
        });
        await res.body.text();
        into.push(performance.now() - sent);
        if (res.statusCode !== 200) failures += 1;
        await new Promise((resolve) => setTimeout(resolve, RENEW_EVERY_MS));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, BASELINE_MS));
    phase = during;
    process.kill(kernel.pid, 'SIGUSR2');
    log(`exporting ${entries} entries beside ${RENEWERS} renewing clients …`);
    const out = join(dir, 'bundle.json');
    const began = performance.now();
    let said: string | undefined;
    const exitCode = await new Promise<number | null>((resolve) => {
      const child = spawn(
        process.execPath,
        ['dist/cli/index.js', 'ledger', 'export', '--url', kernel.url, '--out', out],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      child.stderr.on(
        'data',
        (chunk: Buffer) => (said = chunk.toString().trim().split('\n').at(-1)),
      );
      const timer = setTimeout(() => child.kill('SIGKILL'), EXPORT_LIMIT_MS);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    const exportSeconds = (performance.now() - began) / 1000;
    phase = undefined;
    await Promise.all(renewers);
    await pool.close();
    await kernel.stop();
    if (exitCode !== 0) throw new Error(`ledger export exited ${exitCode}: ${said}`);
    const loop = JSON.parse(readFileSync(loopFile, 'utf8')) as LoopDelay;
    return {
      loopMaxMs: loop.maxMs,
      loopP99Ms: loop.p99Ms,
      gcMaxMs: loop.gcMaxMs,
      entries,
      exportSeconds,
      bundleMb: statSync(out).size / 2 ** 20,
      renewals: during.length,
      failures,
      p99BeforeMs: percentile(before, 99),
      p99DuringMs: percentile(during, 99),
      maxDuringMs: max(during),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
