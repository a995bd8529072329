import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/server.js';
import { createPlaneClient, type PlaneClient } from '../src/plane/client.js';
import {
  appTestKit,
  writeAppConfig,
  inProcessApp as startInProcess,
  stopAll,
  untilLogged,
} from './support/app-harness.js';
import { startFakeGitHub, type FakeGitHub } from './support/fake-github-app.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { freePort } from './support/ports.js';

/**
 * The protection-rule app across a crash and beside a replica: a fake GitHub on
 * loopback that records its deliveries (`/app/hook/deliveries`), a real kernel (the
 * built CLI) with 20-second leases, and the app from source, in-process or as its own
 * process (`lease-gate app` under tsx) killed with SIGKILL. An already approved run
 * keeps its lease whatever GitHub's review call answers; runs left waiting by a
 * killed app are queued again at start, in the order GitHub first delivered them.
 */

const KEY = 'kernel-key-restart';
const RESOURCES = {
  restart: 'lock:deploy/restart',
  refused: 'lock:deploy/refused',
  applied: 'lock:deploy/applied',
  recover: 'lock:deploy/recover',
  replicas: 'lock:deploy/replicas',
} as const;
type Env = keyof typeof RESOURCES;
const REPO = 'acme/shop';

let kernel: KernelProcess;
let github: FakeGitHub;
let plane: PlaneClient;
const apps: RunningApp[] = [];
const children: ChildProcess[] = [];
const logs: string[] = [];

const until = untilLogged(logs, 60_000);

function writeConfig(port: number, extra: Record<string, unknown> = {}): string {
  return writeAppConfig(
    github,
    { url: kernel.url, key: KEY },
    {
      listen: { host: '127.0.0.1', port, path: '/' },
      rules: Object.entries(RESOURCES).map(([environment, resource]) => ({
        repository: REPO,
        environment,
        resource,
      })),
      takeUpGrace: '10m',
      runCheckEvery: '1m',
      deploymentStatus: false,
      ...extra,
    },
    { dirPrefix: 'lease-gate-app-restart-' },
  );
}

const inProcessApp = (name: string) =>
  startInProcess(writeConfig(0), {
    logs,
    apps,
    name,
    github: { budgetMs: 10_000, retry: { baseMs: 50, capMs: 400, maxAttempts: 5 } },
  });

const { approvedAt, reviewsOf, newRun, complete, logged, processApp, expectOneAtATime } =
  appTestKit<Env>({ github: () => github, kernel: () => kernel, logs, children, repository: REPO });
const approvals = (runId: number) =>
  reviewsOf(runId).filter(
    (c) => c.status === 204 && (c.body as { state: string }).state === 'approved',
  ).length;

beforeAll(async () => {
  kernel = await startKernelProcess(['--ttl-ms', '20000', '--lock-delay-ms', '0'], {
    LEASE_GATE_KERNEL_KEY: KEY,
  });
  github = await startFakeGitHub({ installations: [77] });
  plane = createPlaneClient({ apiUrl: kernel.url, key: KEY });
});

afterAll(() => stopAll({ children, apps }, plane, github, kernel));

/**
 * Run `runId` approved by an app process, which is then killed with -9; a second app on
 * the same config, whose recovery cannot list the deliveries (recovered, the run's lease
 * would be kept at start: app-approval.test.ts), queues run `runId + 1` behind it. What
 * finds the first run again is `redeliver`: GitHub's redelivery of its request (a person
 * pressed Redeliver).
 */
async function approvedThenRestarted(environment: Env, runId: number, names: [string, string]) {
  const port = await freePort();
  const config = writeConfig(port);
  const url = `http://127.0.0.1:${port}`;
  const first = await processApp(names[0], config);
  const a = newRun(runId, environment);
  expect((await github.deliver(url, 'deployment_protection_rule', a.payload)).status).toBe(202);
  await until(`the approval of run ${runId}`, () => approvedAt(runId) !== undefined);
  await first.kill9();

  github.fail(/^GET \/app\/hook\/deliveries\?/, { status: 404 });
  await processApp(names[1], config);
  const next = runId + 1;
  const b = newRun(next, environment);
  expect((await github.deliver(url, 'deployment_protection_rule', b.payload)).status).toBe(202);
  await until(`run ${next} queued`, () =>
    logged(names[1], new RegExp(`run ${next} of .*waiting for`)),
  );
  const redeliver = async () => {
    const guid = github.deliveries.find((d) => d.request.payload === a.payload)!.guid;
    expect((await github.redeliver(guid)).status).toBe(202);
    await until(`the answer to run ${runId} again`, () =>
      logged(
        names[1],
        new RegExp(`run ${runId} of .*(already decided|approval failed|approval refused)`),
      ),
    );
  };
  return { url, a, redeliver };
}

/** Run `runId` ends and gives its lease back; the run queued behind it is approved, then ends. */
async function handOver(resource: string, runId: number, ...to: string[]) {
  await complete(runId, ...to);
  await until(`the approval of run ${runId + 1}`, () => approvedAt(runId + 1) !== undefined);
  expectOneAtATime(resource, [runId, runId + 1]);
  await complete(runId + 1, ...to);
}

describe('lease-gate app across a restart', () => {
  it('keeps an approved run lease when, restarted with kill -9, it is given the run again and GitHub answers 422', async () => {
    const R = RESOURCES.restart;
    // Restarted: run 701's job deploys under its lease; run 702 queues behind it.
    const { url, a, redeliver } = await approvedThenRestarted('restart', 701, ['first', 'second']);
    await redeliver();
    expect(reviewsOf(701).map((c) => c.status)).toEqual([204, 422]);
    // The lease is still run 701's: nothing was given back, run 702 is not approved.
    expect((await plane.status(R))?.holder).toBe(a.did);
    expect(approvedAt(702)).toBeUndefined();

    // The run ends: its lease is given back, and run 702 is approved.
    await handOver(R, 701, url);
  }, 120_000);

  it('keeps an approved run lease when, after kill -9 and a redelivery, the review call is answered 404', async () => {
    const R = RESOURCES.refused;
    const { url, a, redeliver } = await approvedThenRestarted('refused', 711, [
      'first-404',
      'second-404',
    ]);
    // The redelivery's review call is refused outright (a 4xx but 422: nothing applied). The
    // plane's answer to the app's ask is a renewal of the lease run 711's job holds.
    github.fail(/^POST \/repos\/acme\/shop\/actions\/runs\/711\/deployment_protection_rule$/, {
      status: 404,
    });
    await redeliver();
    expect(reviewsOf(711).map((c) => c.status)).toEqual([204, 404]);
    // Still run 711's lease: not given back, and run 712 is not approved beside it.
    expect((await plane.status(R))?.holder).toBe(a.did);
    expect(approvedAt(712)).toBeUndefined();
    expect(logged('second-404', /run 711 of .*given back/)).toBe(false);

    await handOver(R, 711, url);
  }, 120_000);

  it('keeps the lease when GitHub applied the approval and answered 502 (the retry gets 422)', async () => {
    const R = RESOURCES.applied;
    const app = await inProcessApp('applied');
    const a = newRun(721, 'applied');
    github.fail(/^POST \/repos\/acme\/shop\/actions\/runs\/721\/deployment_protection_rule$/, {
      status: 502,
      applied: true,
    });
    await github.deliver(app.url, 'deployment_protection_rule', a.payload);
    await until('the answer to run 721', () =>
      logged('applied', /run 721 of .*(already decided|approval failed|approval refused)/),
    );
    const b = newRun(722, 'applied');
    await github.deliver(app.url, 'deployment_protection_rule', b.payload);
    // Waiting behind run 721 (or, were run 721's lease given back, approved at once).
    await until('run 722 queued', () =>
      logged('applied', /run 722 of .*(waiting for|approved after)/),
    );
    expect(reviewsOf(721).map((c) => c.status)).toEqual([502, 422]);
    expect(github.run(REPO, 721)!.status).toBe('queued');
    expect((await plane.status(R))?.holder).toBe(a.did);
    expect(approvedAt(722)).toBeUndefined();
    await handOver(R, 721, app.url);
  }, 90_000);

  it('queues again, in their first order, the runs a killed app left waiting and those sent while it was down', async () => {
    const R = RESOURCES.recover;
    const port = await freePort();
    const config = writeConfig(port);
    const url = `http://127.0.0.1:${port}`;
    const first = await processApp('crashing', config);
    const holder = newRun(731, 'recover');
    await github.deliver(url, 'deployment_protection_rule', holder.payload);
    await until('the approval of run 731', () => approvedAt(731) !== undefined);
    const waiting = [newRun(732, 'recover'), newRun(733, 'recover')];
    for (const run of waiting) {
      await github.deliver(url, 'deployment_protection_rule', run.payload);
      await until(`run ${run.runId} queued`, () =>
        logged('crashing', new RegExp(`run ${run.runId} of .*waiting for`)),
      );
    }
    await first.kill9();
    // Sent while the app is down: GitHub records a failed delivery, and does not retry it.
    const late = newRun(734, 'recover');
    expect((await github.deliver(url, 'deployment_protection_rule', late.payload)).status).toBe(0);

    await processApp('recovered', config);
    await until('the recovery', () => logged('recovered', /recovery: \d+ protection-rule/));
    // Run 731's job ends and gives its lease back, as its post step does (or it lapsed
    // already, on a slow machine: nobody renews it since the kill; the kernel says which).
    await runCli(['release', '--resource', R, '--api-url', kernel.url, '--actor-did', holder.did], {
      LEASE_GATE_KEY: KEY,
    });
    const left = [732, 733, 734];
    while (left.length > 0) {
      // The next approval, whichever run it is: the oldest request left.
      await until('the next approval', () => left.some((r) => approvedAt(r) !== undefined));
      expect(left.filter((r) => approvedAt(r) !== undefined)).toEqual([left[0]]);
      await complete(left.shift()!, url);
    }
    for (const runId of [731, 732, 733, 734]) expect(approvals(runId)).toBe(1);
    expectOneAtATime(R, [731, 732, 733, 734]);
  }, 150_000);

  it('two replicas recovering the same runs approve each once, one at a time, in first order', async () => {
    const R = RESOURCES.replicas;
    // Sent while no replica runs: all three failed deliveries.
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const runs = [newRun(741, 'replicas'), newRun(742, 'replicas'), newRun(743, 'replicas')];
    for (const run of runs)
      await github.deliver(nowhere, 'deployment_protection_rule', run.payload);
    const [a, b] = await Promise.all([inProcessApp('replica-a'), inProcessApp('replica-b')]);
    const left = [...runs];
    while (left.length > 0) {
      await until('the next approval', () => left.some((r) => approvedAt(r.runId) !== undefined));
      // Both replicas asked as the run's DID: one lease, one approval, the other told 422.
      expect(left.filter((r) => approvedAt(r.runId) !== undefined)).toEqual([left[0]]);
      expect((await plane.status(R))?.holder).toBe(left[0]!.did);
      await complete(left.shift()!.runId, a.url, b.url);
    }
    for (const { runId } of runs) expect(approvals(runId)).toBe(1);
    expectOneAtATime(R, [741, 742, 743]);
  }, 150_000);

  it('refuses at start, exit 2, a misspelt setting and a key that does not parse', async () => {
    const run = (config: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', 'src/bin/cli.ts', 'app', '--config', config],
          {
            env: { PATH: process.env.PATH ?? '' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        // An app that starts instead of refusing is stopped, and fails the test below.
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stderr });
        });
      });
    const misspelt = await run(writeConfig(0, { takeUpGrase: '1m' }));
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toContain("field 'takeUpGrase': not a setting of the app");
    const config = writeConfig(0);
    writeFileSync(
      join(config, '..', 'app.pem'),
      '-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5\n-----END RSA PRIVATE KEY-----\n',
    );
    const garbage = await run(config);
    expect(garbage.code).toBe(2);
    expect(garbage.stderr).toContain("field 'privateKeyFile'");
    expect(garbage.stderr).not.toContain('bm90IGEga2V5');
  }, 60_000);
});
