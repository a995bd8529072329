import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { advisoryHandover, HANDOVER_GOAL } from './pg-handover.js';
import { URL, benchSchemas, handover, run, startReplica, stopped } from './postgres.js';
import { percentile, round } from './stats.js';

/**
 * `index.js pg-handover [pairs] [CLI ...]` (issue #59, item 5): only the one-replica handover
 * beside pg_advisory_lock's, for work on that path. Each pair runs pg_advisory_lock, then the
 * kernel of each CLI given (default: the committed dist/cli/index.js) on a fresh schema, so a
 * before and an after alternate under the same load; each with the replica's CPU per handover
 * (its process, every thread, from /proc: the figure other work on the machine moves least).
 */

const ROUNDS = Number(process.env.LEASE_GATE_BENCH_HANDOVERS ?? 100);

interface Run {
  cli: string;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerHandover: number;
  load: number;
  /** Across two replicas (release on A, the request held on B), when asked for. */
  two?: { p50Ms: number; p99Ms: number } | undefined;
}

/** LEASE_GATE_BENCH_TWO_REPLICAS=1: each run also times the handover across two replicas. */
const TWO = process.env.LEASE_GATE_BENCH_TWO_REPLICAS === '1';

export async function handoverPairs(
  pairs: number,
  clis: readonly string[],
  log: (line: string) => void,
): Promise<string> {
  const admin = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 2_000 });
  admin.on('error', () => undefined);
  await admin.connect();
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-pg-handover-'));
  const schemas = benchSchemas(admin);
  const fresh = schemas.fresh;
  const advisory: Array<{ p50Ms: number; p99Ms: number }> = [];
  const runs: Run[] = [];
  try {
    await run(['keygen', '--out', dir]);
    for (let pair = 0; pair < pairs; pair += 1) {
      log(`pg-handover: pair ${pair + 1} of ${pairs}, pg_advisory_lock …`);
      advisory.push(await advisoryHandover(URL, ROUNDS));
      for (const cli of clis) {
        log(`pg-handover: pair ${pair + 1}, ${cli} …`);
        const key = join(dir, 'ledger.key');
        const one = await oneReplica(await fresh(), key, cli);
        runs.push(TWO ? { ...one, two: await twoReplicas(await fresh(), key, cli) } : one);
      }
    }
  } finally {
    await schemas.drop();
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return table(advisory, runs);
}

async function oneReplica(schema: string, key: string, cli: string): Promise<Run> {
  const replica = await startReplica(schema, key, URL, cli);
  try {
    // A first round warms the replica's connections and code, as pg_advisory_lock's sessions are.
    await handover(replica.url, replica.url, 2);
    const load = loadavg()[0]!;
    const before = cpuMs(replica.child.pid!);
    const { p50Ms, p99Ms } = await handover(replica.url, replica.url, ROUNDS);
    const cpuMsPerHandover = (cpuMs(replica.child.pid!) - before) / ROUNDS;
    return { cli, p50Ms, p99Ms, cpuMsPerHandover, load };
  } finally {
    await stopped(replica.child);
  }
}

async function twoReplicas(schema: string, key: string, cli: string) {
  const pair = [
    await startReplica(schema, key, URL, cli),
    await startReplica(schema, key, URL, cli),
  ];
  try {
    await handover(pair[0]!.url, pair[1]!.url, 2);
    const { p50Ms, p99Ms } = await handover(pair[0]!.url, pair[1]!.url, ROUNDS);
    return { p50Ms, p99Ms };
  } finally {
    await Promise.all(pair.map((r) => stopped(r.child)));
  }
}

/** A process's user and system CPU, every thread (Linux: /proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function table(advisory: ReadonlyArray<{ p50Ms: number; p99Ms: number }>, runs: readonly Run[]) {
  const ms = (v: number) => `${round(v, 2)} ms`;
  const lines = [
    `${cpus().length} cores, Node ${process.version}, ${ROUNDS} handovers per run`,
    '',
    '| pair | run | p50 | p99 | p99 / advisory p99 | replica CPU per handover | load (1 min) | 2 replicas p50 / p99 |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  const perPair = runs.length / advisory.length;
  advisory.forEach((a, pair) => {
    lines.push(`| ${pair + 1} | pg_advisory_lock | ${ms(a.p50Ms)} | ${ms(a.p99Ms)} | | | | |`);
    for (const r of runs.slice(pair * perPair, (pair + 1) * perPair)) {
      const ratio = r.p99Ms / a.p99Ms;
      lines.push(
        `| ${pair + 1} | ${r.cli} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)} | ${round(ratio, 2)} × | ${ms(r.cpuMsPerHandover)} | ${round(r.load, 2)} | ${r.two ? `${ms(r.two.p50Ms)} / ${ms(r.two.p99Ms)}` : ''} |`,
      );
    }
  });
  const clis = [...new Set(runs.map((r) => r.cli))];
  lines.push('', `Goal: the kernel's p99 ≤ ${HANDOVER_GOAL} × pg_advisory_lock's.`);
  for (const cli of clis) {
    const ratios = runs.flatMap((r, i) =>
      r.cli === cli ? [r.p99Ms / advisory[Math.floor(i / perPair)]!.p99Ms] : [],
    );
    lines.push(`${cli}: median p99 ratio ${round(percentile(ratios, 50), 2)} ×`);
  }
  return lines.join('\n');
}
