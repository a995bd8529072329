import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startKernel } from './spawn.js';
import { compileOnlyMain, instrumentMain, readRun, summarize } from './startup-imports.js';
import { median } from './stats.js';

function timeRun(node: string, args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(node, args, { env, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`${node} ${args.join(' ')} exited ${result.status}`);
  return performance.now() - started;
}

/**
 * A GitHub API that accepts every status, in its own process: the timing loop
 * blocks this one in spawnSync, so an in-process server could not answer.
 */
async function fakeGitHub(): Promise<{ url: string; close: () => void }> {
  const code = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(201, { 'content-type': 'application/json' }); s.end('{"id":1}'); }); }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}`, close: () => child.kill() };
}

export interface StartupOptions {
  /** The Node binary the steps run on; this process's by default. */
  node?: string;
  /** The dist/ folders measured, interleaved (a before and an after in one run). */
  dists?: string[];
}

/** The runner's files command files, in a fresh RUNNER_TEMP: each job gets its own. */
function jobFiles(root: string) {
  const dir = mkdtempSync(join(root, 'job-'));
  const files = {
    GITHUB_STATE: join(dir, 'state'),
    GITHUB_OUTPUT: join(dir, 'out'),
    GITHUB_STEP_SUMMARY: join(dir, 'sum'),
  };
  for (const f of Object.values(files)) writeFileSync(f, '');
  return { RUNNER_TEMP: dir, ...files };
}

/** `name<<delimiter` blocks of a runner file command file: main's saved state, for post. */
function savedState(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!match) continue;
    const value: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== match[2]; i += 1) value.push(lines[i]!);
    env[`STATE_${match[1]!}`] = value.join('\n');
  }
  return env;
}

interface Series {
  main: number[];
  post: number[];
  mainRatios: number[];
  postRatios: number[];
  withStatus: number[];
  compileRatios: number[];
  imports: ReturnType<typeof readRun>[];
}

/**
 * The main step of each dist/ to a granted lease and its post step to the lease released,
 * each against a bare node start just before it, without and with a commit status (every
 * other round), interleaved, on one Node binary; with a copy of dist/main that only compiles
 * its bundle, and one that times each import (startup-imports.ts) in the same rounds. Each job
 * gets a fresh RUNNER_TEMP, as on a runner.
 */
export async function startup(runs: number, options: StartupOptions = {}) {
  const node = options.node ?? process.execPath;
  const dists = options.dists ?? ['dist'];
  const kernel = await startKernel();
  const github = await fakeGitHub();
  const root = mkdtempSync(join(tmpdir(), 'lease-gate-bench-'));
  const bare: number[] = [];
  const per = dists.map(() => ({ ...emptySeries() }));
  const statusEnv = {
    'INPUT_GITHUB-TOKEN': 't',
    'INPUT_STATUS-CONTEXT': 'lease-gate/{resource}',
    GITHUB_API_URL: github.url,
    GITHUB_SHA: 'a'.repeat(40),
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_RUN_ID: '1',
  };
  const costs = join(root, 'imports.json');
  const copies = dists.map((dist) => ({
    compile: compileOnlyMain(dist, root),
    imports: instrumentMain(dist, root),
  }));
  const timeBare = () => {
    const ms = timeRun(node, ['-e', ''], { PATH: process.env.PATH });
    bare.push(ms);
    return ms;
  };
  try {
    for (let i = 0; i < runs * 2; i += 1) {
      const statuses = i % 2 === 1;
      dists.forEach((dist, d) => {
        const into = per[d]!;
        const inputs = {
          PATH: process.env.PATH,
          ...(statuses ? statusEnv : {}),
          INPUT_RESOURCE: `lock:bench/${d}/${i}`,
          'INPUT_ACTOR-DID': 'did:web:bench:startup',
          'INPUT_API-URL': kernel.url,
          INPUT_KEY: 'k',
          'INPUT_WAIT-TIMEOUT': '30s',
          'INPUT_ON-TIMEOUT': 'fail',
          'INPUT_KEEP-ALIVE': 'false',
          'INPUT_DRY-RUN': 'false',
        };
        const job = jobFiles(root);
        const before = timeBare();
        const main = timeRun(node, [join(dist, 'main', 'index.js')], { ...inputs, ...job });
        const post = () =>
          timeRun(node, [join(dist, 'post', 'index.js')], {
            ...inputs,
            ...job,
            ...savedState(job.GITHUB_STATE),
          });
        if (statuses) {
          into.withStatus.push(main);
          post();
          return;
        }
        into.main.push(main);
        into.mainRatios.push(main / before);
        const beforePost = timeBare();
        const postMs = post();
        into.post.push(postMs);
        into.postRatios.push(postMs / beforePost);
        into.compileRatios.push(timeRun(node, [copies[d]!.compile], {}) / timeBare());
        const timed = { ...inputs, ...jobFiles(root), LEASE_GATE_IMPORT_COSTS: costs };
        timed.INPUT_RESOURCE += '/imports';
        timeRun(node, [copies[d]!.imports], timed);
        into.imports.push(readRun(costs));
      });
    }
  } finally {
    await kernel.stop();
    github.close();
    rmSync(root, { recursive: true, force: true });
  }
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const size = (entry: string) => statSync(`${dists[0]}/${entry}/${entry}.js`).size / 1024;
  return {
    node: version,
    pairs: runs,
    bareMs: median(bare),
    dists: dists.map((dist, d) => ({ dist, ...figures(per[d]!) })),
    bundleKb: { main: size('main'), post: size('post'), cli: size('cli') },
  };
}

const emptySeries = (): Series => ({
  main: [],
  post: [],
  mainRatios: [],
  postRatios: [],
  withStatus: [],
  compileRatios: [],
  imports: [],
});

function figures(s: Series) {
  return {
    mainMs: median(s.main),
    /** The median of each run's main / the bare start just before it. */
    ratio: median(s.mainRatios),
    postMs: median(s.post),
    postRatio: median(s.postRatios),
    withStatusMs: median(s.withStatus),
    /** Reading and compiling dist/main's bundle, nothing evaluated, / bare node. */
    compileRatio: median(s.compileRatios),
    ...summarize(s.imports),
  };
}

const MIB = 1_048_576;

/** A process's CPU ticks so far (user + system, 1/100 s) and its peak RSS in bytes. */
function processCost(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return { ticks: Number(fields[11]) + Number(fields[12]), peakBytes: peakKb * 1024 };
}

/**
 * A keeper holding a lease for `seconds` with 1.5 s leases (renewals, peak RSS, CPU), and
 * beside it, over the same seconds, a bare node doing nothing but wait: what node costs
 * before any of the keeper's own code. The keeper is dist/keeper, spawned as main does.
 */
export async function keeperCost(seconds: number) {
  const kernel = await startKernel(['--ttl-ms', '1500']);
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-keeper-'));
  const status = join(dir, 'status.json');
  const lease = { resource: 'lock:bench/keeper', holder: 'did:web:bench:keeper' };
  // Take the lease first, as the main step does.
  const { createPlaneClient } = await import('../src/plane/client.js');
  const granted = await createPlaneClient({ apiUrl: kernel.url }).lease({
    resource: lease.resource,
    actorDid: lease.holder,
  });
  if (granted.kind !== 'granted') throw new Error('keeper bench: no lease');
  // As main does: the keeper renews only while its status file exists.
  const { createStatusFile } = await import('../src/lease/keeper-status.js');
  createStatusFile(status);
  // As main spawns it: the keeper's own Node flags first, then its own entry.
  const { KEEPER_NODE_FLAGS } = await import('../src/lease/background.js');
  const child = spawn(
    process.execPath,
    [
      ...KEEPER_NODE_FLAGS,
      'dist/keeper/index.js',
      '--api-url',
      kernel.url,
      '--resource',
      lease.resource,
      '--actor-did',
      lease.holder,
      '--lease',
      JSON.stringify(granted.lease),
      '--status',
      status,
    ],
    { stdio: 'ignore' },
  );
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1_000)'], {
    stdio: 'ignore',
  });
  await sleep(1_000);
  const atStart = processCost(child.pid!);
  const bareAtStart = processCost(bare.pid!);
  await sleep(seconds * 1_000);
  const atEnd = processCost(child.pid!);
  const bareAtEnd = processCost(bare.pid!);
  const cpuSeconds = (atEnd.ticks - atStart.ticks) / 100;
  child.kill('SIGTERM');
  bare.kill('SIGTERM');
  await Promise.all([child, bare].map((p) => new Promise((resolve) => p.on('close', resolve))));
  await kernel.stop();
  const { readStatusFile } = await import('../src/lease/keeper-status.js');
  const record = readStatusFile(status);
  rmSync(dir, { recursive: true, force: true });
  if (!record) throw new Error('keeper bench: the keeper wrote no status record');
  return {
    seconds,
    renewals: record.renewals,
    failures: record.failures + (record.lost ? 1 : 0),
    peakRssMib: atEnd.peakBytes / MIB,
    bareNodePeakRssMib: bareAtEnd.peakBytes / MIB,
    cpuSeconds,
    cpuPercent: (cpuSeconds / seconds) * 100,
    bareNodeCpuPercent: ((bareAtEnd.ticks - bareAtStart.ticks) / 100 / seconds) * 100,
  };
}
