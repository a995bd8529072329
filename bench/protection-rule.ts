import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../src/app/config.js';
import { startApp } from '../src/app/server.js';
import { createPlaneClient } from '../src/plane/client.js';
import { KERNEL_RESOURCES_PATH } from '../src/plane/schema.js';
import { startFakeGitHub } from '../test/support/fake-github-app.js';
import { startKernelProcess } from '../test/support/kernel-process.js';
import { runStep } from '../test/support/runner.js';
import { mean, percentile } from './stats.js';

/**
 * The protection-rule app (`lease-gate app`) against a fake GitHub and the built kernel:
 * how soon the next queued run is approved after the holder releases, and how many
 * runner-seconds a queued deploy spends waiting with the app (its step takes the lease up)
 * and without it (the built main step waiting in the job).
 */

const R = 'lock:deploy/production';
const KEY = 'bench-key';

export async function protectionRuleBench(handovers: number, log: (line: string) => void) {
  const kernel = await startKernelProcess(['--quiet'], { LEASE_GATE_KERNEL_KEY: KEY });
  const github = await startFakeGitHub();
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-app-'));
  writeFileSync(join(dir, 'app.pem'), github.privateKeyPem);
  writeFileSync(join(dir, 'secret'), github.secret);
  writeFileSync(join(dir, 'key'), KEY);
  const config = {
    appId: github.appId,
    privateKeyFile: 'app.pem',
    webhookSecretFile: 'secret',
    githubApiUrl: github.url,
    plane: { url: kernel.url, keyFile: 'key' },
    listen: { port: 0 },
    rules: [{ repository: 'acme/*', environment: 'production', resource: R, job: 'deploy' }],
    deploymentStatus: false,
  };
  writeFileSync(join(dir, 'app.json'), JSON.stringify(config));
  const app = await startApp(loadConfig(join(dir, 'app.json'), {}), { log: () => {}, env: {} });
  const plane = createPlaneClient({ apiUrl: kernel.url, key: KEY });
  const approval = (runId: number) =>
    github.calls.find(
      (c) => c.status === 204 && c.path.endsWith(`/runs/${runId}/deployment_protection_rule`),
    );
  const holderOf = (runId: number) =>
    /granted to this run as (\S+):/.exec(
      (approval(runId)!.body as { comment: string }).comment,
    )![1]!;
  async function approved(runId: number): Promise<number> {
    for (const started = Date.now(); Date.now() - started < 60_000; await sleep(1)) {
      const call = approval(runId);
      if (call) return call.atMs;
    }
    throw new Error(`run ${runId} was not approved`);
  }
  /** Runs that hold the resource or wait for it, as the kernel's overview says. */
  async function inLine(): Promise<number> {
    const res = await fetch(`${kernel.url}${KERNEL_RESOURCES_PATH}`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const { resources } = (await res.json()) as {
      resources: Array<{ resource: string; lease: unknown; queue: unknown[] }>;
    };
    const r = resources.find((x) => x.resource === R);
    return r ? (r.lease ? 1 : 0) + r.queue.length : 0;
  }
  async function queue(first: number, count: number) {
    const before = await inLine();
    for (let runId = first; runId < first + count; runId += 1) {
      const repository = runId % 2 ? 'acme/shop' : 'acme/web';
      github.addRun(repository, runId, 'production');
      await github.deliver(
        app.url,
        'deployment_protection_rule',
        github.protectionRule(repository, runId, 'production'),
      );
      // The app answers the delivery first and queues after (its GitHub calls may finish in
      // any order): the next run is delivered once this one has its place, so the queue's
      // order is the runs' order, which the handovers below count on.
      const placed = before + runId - first + 1;
      for (let tries = 0; (await inLine()) < placed; tries += 1) {
        if (tries > 2_000) throw new Error(`run ${runId} took no place in the queue`);
        await sleep(5);
      }
    }
  }
  try {
    // Approval latency: the holder (standing in for the job's post step) releases; the next run is approved.
    log(`protection-rule app: ${handovers} handovers …`);
    await queue(1, handovers + 1);
    const latencies: number[] = [];
    await approved(1);
    for (let runId = 1; runId <= handovers; runId += 1) {
      const releasedAt = Date.now();
      await plane.release({ resource: R, actorDid: holderOf(runId) });
      latencies.push((await approved(runId + 1)) - releasedAt);
    }
    await plane.release({ resource: R, actorDid: holderOf(handovers + 1) });

    // Runner-seconds waiting: three deploys of 2 s queued at once, with the app and in the step.
    log('protection-rule app: runner-seconds waiting, with the app and in the step …');
    const deploy = (repository: string, runId: number, extra: Record<string, string> = {}) => {
      const tempDir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-job-'));
      const options = {
        tempDir,
        inputs: {
          'api-url': kernel.url,
          key: KEY,
          'keep-alive': 'true',
          'wait-timeout': '2m',
          resource: R,
          ...extra,
        },
        env: { GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: String(runId), GITHUB_JOB: 'deploy' },
      };
      return async () => {
        const main = await runStep('main', options);
        if (main.outputs.acquired !== 'true')
          throw new Error(`run ${runId}: ${main.stdout}${main.stderr}`);
        await sleep(2_000);
        await runStep('post', { ...options, state: main.state });
        return Number(main.outputs['waited-ms']) / 1_000;
      };
    };
    const withApp: number[] = [];
    const base = 1_000;
    await queue(base, 3);
    for (let runId = base; runId < base + 3; runId += 1) {
      await approved(runId);
      withApp.push(await deploy(runId % 2 ? 'acme/shop' : 'acme/web', runId)());
    }
    const inStep = await Promise.all(
      [2_001, 2_002, 2_003].map((runId) => deploy('acme/shop', runId)()),
    );
    const queued = inStep.sort((a, b) => a - b).slice(1);
    return {
      handovers,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      appRunnerSecondsPerQueued: mean(withApp.slice(1)),
      inStepRunnerSecondsPerQueued: mean(queued),
    };
  } finally {
    await app.close();
    await plane.close();
    await github.close();
    await kernel.stop();
  }
}
