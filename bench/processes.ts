import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startKernel } from './spawn.js';
import { median } from './stats.js';

function timeRun(args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
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

/**
 * The committed main step acquiring a free lease, without and with a commit
 * status, against a bare node start, interleaved.
 */
export async function startup(runs: number) {
  const kernel = await startKernel();
  const github = await fakeGitHub();
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-'));
  const bare: number[] = [];
  const main: number[] = [];
  const ratios: number[] = [];
  const withStatus: number[] = [];
  const statusEnv = {
    'INPUT_GITHUB-TOKEN': 't',
    'INPUT_STATUS-CONTEXT': 'lease-gate/{resource}',
    GITHUB_API_URL: github.url,
    GITHUB_SHA: 'a'.repeat(40),
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_RUN_ID: '1',
  };
  try {
    for (let i = 0; i < runs * 2; i += 1) {
      const statuses = i % 2 === 1;
      if (!statuses) bare.push(timeRun(['-e', ''], { PATH: process.env.PATH }));
      const files = {
        GITHUB_STATE: join(dir, 'state'),
        GITHUB_OUTPUT: join(dir, 'out'),
        GITHUB_STEP_SUMMARY: join(dir, 'sum'),
      };
      for (const f of Object.values(files)) writeFileSync(f, '');
      const ms = timeRun(['dist/main/index.js'], {
        PATH: process.env.PATH,
        ...files,
        ...(statuses ? statusEnv : {}),
        RUNNER_TEMP: dir,
        INPUT_RESOURCE: `lock:bench/${i}`,
        'INPUT_ACTOR-DID': 'did:web:bench:startup',
        'INPUT_API-URL': kernel.url,
        INPUT_KEY: 'k',
        'INPUT_WAIT-TIMEOUT': '30s',
        'INPUT_ON-TIMEOUT': 'fail',
        'INPUT_KEEP-ALIVE': 'false',
        'INPUT_DRY-RUN': 'false',
      });
      if (statuses) withStatus.push(ms);
      else {
        main.push(ms);
        ratios.push(ms / bare.at(-1)!);
      }
    }
  } finally {
    await kernel.stop();
    github.close();
  }
  const size = (entry: string) => statSync(`dist/${entry}/${entry}.js`).size / 1024;
  return {
    bareMs: median(bare),
    mainMs: median(main),
    /** The median of each run's main / the bare start just before it. */
    ratio: median(ratios),
    node: process.version,
    withStatusMs: median(withStatus),
    bundleKb: { main: size('main'), post: size('post'), cli: size('cli') },
  };
}

/** A keeper holding a lease for `seconds` with 1.5 s leases: renewals, peak RSS, CPU. */
export async function keeperCost(seconds: number) {
  const kernel = await startKernel(['--ttl-ms', '1500']);
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-keeper-'));
  const status = join(dir, 'status.json');
  const lease = {
    id: 'pending',
    resource: 'lock:bench/keeper',
    holder: 'did:web:bench:keeper',
    expiresAtMs: Date.now() + 1_500,
  };
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
  const child = spawn(
    process.execPath,
    [
      'dist/cli/index.js',
      'keep',
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
  const pid = child.pid!;
  const ticks = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  await sleep(1_000);
  const ticksAtStart = ticks();
  await sleep(seconds * 1_000);
  const cpuSeconds = (ticks() - ticksAtStart) / 100;
  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.on('close', resolve));
  await kernel.stop();
  const { readStatusFile } = await import('../src/lease/keeper-status.js');
  const record = readStatusFile(status);
  if (!record) throw new Error('keeper bench: the keeper wrote no status record');
  return {
    seconds,
    renewals: record.renewals,
    failures: record.failures + (record.lost ? 1 : 0),
    peakRssMb: peakKb / 1024,
    cpuSeconds,
    cpuPercent: (cpuSeconds / seconds) * 100,
  };
}
