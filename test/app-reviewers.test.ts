import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/app/config.js';
import { startApp, type RunningApp } from '../src/app/server.js';
import { reviewCalls, writeAppConfig, untilLogged } from './support/app-harness.js';
import { startFakeGitHub, type FakeGitHub } from './support/fake-github-app.js';
import { startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { PROD } from './support/names.js';

/**
 * Runs waiting for their environment's required reviewers never block the queue: with the
 * protection-rule app (in-process), a fake GitHub on loopback and a real kernel (the built
 * CLI), a run whose reviewers have not approved holds no place while a later run without
 * reviewers is approved; once its reviewers approve (a `deployment_review` delivery) it joins
 * the queue, and it is approved when the resource is free; a run its reviewers reject never
 * joins.
 */

const KEY = 'kernel-key-reviewers';

let kernel: KernelProcess;
let github: FakeGitHub;
let app: RunningApp;
const logs: string[] = [];

const until = untilLogged(logs);

const reviewOf = (repository: string, runId: number) =>
  reviewCalls(github, repository, runId).find((c) => c.status === 204)?.body as
    { state: string; comment: string } | undefined;

async function request(repository: string, runId: number) {
  github.addRun(repository, runId, 'production');
  const payload = github.protectionRule(repository, runId, 'production');
  expect((await github.deliver(app.url, 'deployment_protection_rule', payload)).status).toBe(202);
}

/** The kernel's queue of PROD: who waits, in order. */
async function queue(): Promise<string[]> {
  const answer = await fetch(`${kernel.url}/api/v1/kernel/resources`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  const body = (await answer.json()) as {
    resources: Array<{ resource: string; queue: Array<{ actorDid: string }> }>;
  };
  return body.resources.find((r) => r.resource === PROD)?.queue.map((w) => w.actorDid) ?? [];
}

beforeAll(async () => {
  github = await startFakeGitHub({ installations: [77] });
  kernel = await startKernelProcess(['--ttl-ms', '6000'], { LEASE_GATE_KERNEL_KEY: KEY });
  const config = writeAppConfig(
    github,
    { url: kernel.url, key: KEY },
    {
      listen: { host: '127.0.0.1', port: 0, path: '/' },
      rules: [{ repository: 'acme/*', environment: 'production', resource: PROD }],
      takeUpGrace: '2m',
      runCheckEvery: '1m',
      deploymentStatus: false,
    },
    { dirPrefix: 'lease-gate-app-reviewers-' },
  );
  app = await startApp(loadConfig(config, {}), {
    log: (line) => logs.push(line),
    env: {},
    github: { budgetMs: 10_000, retry: { baseMs: 50, capMs: 400, maxAttempts: 5 } },
  });
});

afterAll(async () => {
  await app?.close();
  await github?.close();
  await kernel?.stop();
});

describe('runs waiting for reviewers in the protection-rule app', () => {
  it('hold no place until their reviewers approve, and never block the runs behind them', async () => {
    github.requireReviewers('acme/shop', 'production');
    await request('acme/shop', 701);
    await until('run 701 to wait for its reviewers', () =>
      logs.some(
        (l) =>
          l.startsWith('run 701 of acme/shop') && l.includes('waits for its required reviewers'),
      ),
    );
    // A later run without reviewers is approved while 701's reviewers have not decided.
    await request('acme/web', 702);
    await until('the review of run 702', () => reviewOf('acme/web', 702) !== undefined);
    expect(reviewOf('acme/web', 702)).toMatchObject({ state: 'approved' });
    expect(reviewOf('acme/shop', 701)).toBeUndefined();
    expect(await queue()).toEqual([]);

    // Its reviewers approve: it joins the queue behind 702's lease at once (the delivery wakes it).
    const approved = github.review('acme/shop', 701, 'production', 'approved');
    expect((await github.deliver(app.url, 'deployment_review', approved)).status).toBe(202);
    await until('run 701 to join the queue', async () => (await queue()).length === 1);
    expect((await queue())[0]).toMatch(/:runs:701:attempts:1:jobs:%2A:protection-rule-\d+$/);
    expect(logs.some((l) => l.startsWith('run 701') && l.includes('its reviewers approved'))).toBe(
      true,
    );
    expect(reviewOf('acme/shop', 701)).toBeUndefined();

    // 702 ends: 701 is granted and approved.
    github.run('acme/web', 702)!.status = 'completed';
    await github.deliver(app.url, 'workflow_run', github.workflowRunCompleted('acme/web', 702));
    await until('the review of run 701', () => reviewOf('acme/shop', 701) !== undefined);
    expect(reviewOf('acme/shop', 701)).toMatchObject({ state: 'approved' });
    github.run('acme/shop', 701)!.status = 'completed';
    await github.deliver(app.url, 'workflow_run', github.workflowRunCompleted('acme/shop', 701));
  });

  it('a run its reviewers reject never joins the queue', async () => {
    await request('acme/shop', 703);
    await until('run 703 to wait for its reviewers', () =>
      logs.some(
        (l) => l.startsWith('run 703 of') && l.includes('waits for its required reviewers'),
      ),
    );
    const rejected = github.review('acme/shop', 703, 'production', 'rejected');
    await github.deliver(app.url, 'deployment_review', rejected);
    await until('run 703 to be dropped', () =>
      logs.some((l) => l.startsWith('run 703 of') && l.includes('its reviewers rejected it')),
    );
    expect(await queue()).toEqual([]);
    // GitHub fails the run itself: the app does not review it.
    expect(reviewOf('acme/shop', 703)).toBeUndefined();
  });
});
