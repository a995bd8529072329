import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { handover } from './handover.js';
import { ledgerBench } from './ledger.js';
import { postgresBench } from './postgres.js';
import { keeperCost, startup } from './processes.js';
import { round, type Row } from './stats.js';
import { inProcess, overHttp } from './throughput.js';

/** npm run bench: every figure of the performance table, side by side where compared. */

const OUT = process.argv[2] ?? 'bench-results.json';
const log = (line: string) => process.stderr.write(`${line}\n`);
const rows: Row[] = [];
const add = (
  section: string,
  metric: string,
  value: number | string,
  unit: string,
  target?: string,
  ok?: boolean,
) =>
  rows.push({
    section,
    metric,
    value: typeof value === 'number' ? round(value, value < 10 ? 2 : 1) : value,
    unit,
    ...(target ? { target } : {}),
    ...(ok === undefined ? {} : { ok }),
  });

const TTL_MS = 10_000;
log(`handover: the kernel, ${TTL_MS / 1000} s leases …`);
const ours = await handover({ plane: 'kernel', ttlMs: TTL_MS, handovers: 63 });
log('handover: a TTL-only baseline, same leases …');
const baseline = await handover({ plane: 'ttl-only', ttlMs: TTL_MS, handovers: 7 });
for (const r of [ours, baseline]) {
  const s = `handover (${r.plane})`;
  add(s, 'handovers measured', r.handovers, '');
  add(s, 'release → grant p50', r.latencyMs.p50, 'ms');
  add(s, 'release → grant p95', r.latencyMs.p95, 'ms');
  add(
    s,
    'release → grant p99',
    r.latencyMs.p99,
    'ms',
    r.plane === 'kernel' ? '≤ 1000' : undefined,
    r.plane === 'kernel' ? r.latencyMs.p99 <= 1000 : undefined,
  );
  add(s, 'release → grant max', r.latencyMs.max, 'ms');
  add(s, 'requests (total)', r.requests, '');
  add(
    s,
    'requests per waiter per second',
    r.requestsPerWaiterPerSecond,
    '/s',
    r.plane === 'kernel' ? '≤ 2' : undefined,
    r.plane === 'kernel' ? r.requestsPerWaiterPerSecond <= 2 : undefined,
  );
  add(s, 'fairness (longest / mean wait)', r.fairness, '×');
  add(s, 'grants per agent (min–max)', `${r.grantsPerAgent.min}–${r.grantsPerAgent.max}`, '');
  add(s, 'grants out of arrival order', r.outOfOrder, '');
  add(
    s,
    'starved agents',
    r.starved,
    '',
    r.plane === 'kernel' ? '0' : undefined,
    r.plane === 'kernel' ? r.starved === 0 : undefined,
  );
}
const p99Ratio = baseline.latencyMs.p99 / ours.latencyMs.p99;
add('handover', 'TTL-only p99 / kernel p99', p99Ratio, '×', '≥ 10', p99Ratio >= 10);

log('start-up of the committed main step …');
const start = await startup(15);
add('start-up', 'bare node -e ""', start.bareMs, 'ms');
add('start-up', 'dist/main acquiring a free lease', start.mainMs, 'ms');
add('start-up', 'main / bare node', start.ratio, '×', '≤ 3', start.ratio <= 3);
add('start-up', 'dist/main with a commit status', start.withStatusMs, 'ms');
for (const [entry, kb] of Object.entries(start.bundleKb))
  add('start-up', `dist/${entry}/index.js`, kb, 'KB');

log('kernel throughput …');
const core = inProcess(200_000);
add('kernel', 'in-process lease + release', core.pairsPerSecond, 'pairs/s');
const http = await overHttp(16, 8);
add(
  'kernel',
  `over HTTP, ${http.clients} keep-alive clients`,
  http.requestsPerSecond,
  'req/s',
  '≥ 5000',
  http.requestsPerSecond >= 5000,
);
add('kernel', 'over HTTP p50 latency', http.p50Ms, 'ms');
add('kernel', 'over HTTP p99 latency', http.p99Ms, 'ms');

log('keeper cost over 60 s with 1.5 s leases …');
const keeper = await keeperCost(60);
add('keeper', 'renewals in 60 s', keeper.renewals, '');
add('keeper', 'gaps', keeper.gaps, '', '0', keeper.gaps === 0);
add('keeper', 'peak RSS', keeper.peakRssMb, 'MB', '≤ 60', keeper.peakRssMb <= 60);
add('keeper', 'CPU', keeper.cpuPercent, '% of a core', '≤ 1', keeper.cpuPercent <= 1);

log('ledger on a million entries …');
const ledger = ledgerBench(1_000_000);
add('ledger', 'entries', ledger.entries, '');
add('ledger', 'appends', ledger.appendsPerSecond, '/s');
add('ledger', 'checkpoints signed', ledger.checkpointsPerSecond, '/s');
add('ledger', 'verify a checkpoint', ledger.verifyCheckpointMs, 'ms');
add('ledger', 'verify 1 000 inclusion proofs', ledger.verify1000ProofsMs, 'ms');

const postgres = await postgresBench((s, m, v, u) => add(s, m, v, u), log);

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${round(totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}`;
writeFileSync(
  OUT,
  JSON.stringify(
    {
      machine,
      date: new Date().toISOString(),
      rows,
      raw: { ours, baseline, start, core, http, keeper, ledger, postgres },
    },
    null,
    2,
  ),
);
console.log(`| section | metric | value | unit | target |\n|---|---|---:|---|---|`);
for (const r of rows) {
  const target = r.target ? `${r.target} ${r.ok ? '✓' : '✗'}` : '';
  console.log(`| ${r.section} | ${r.metric} | ${r.value} | ${r.unit} | ${target} |`);
}
console.log(`\nmachine: ${machine}\nfigures also in ${OUT}`);
