import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/server.js';
import {
  decidedAt,
  kernelEvents as kernelLog,
  reviewCalls,
  writeAppConfig,
  inProcessApp as startInProcess,
  stopAll,
  untilLogged,
} from './support/app-harness.js';
import { startFakeGitHub, type FakeGitHub } from './support/fake-github-app.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { runStep } from './support/runner.js';
import { R } from './support/names.js';

/**
 * The protection-rule app end to end: a fake GitHub on loopback sends signed
 * deliveries; the app queues each run on a real kernel (the built CLI) and approves
 * it when granted; each job is the built action (main, then post) taking up the
 * lease its run was given.
 */

const SLOW = 'lock:deploy/slow';
const KEY = 'kernel-key-e2e';
const WEBHOOK = /run (\d+) of (\S+) \(environment [^)]+\): queued for/;

let kernel: KernelProcess;
let github: FakeGitHub;
const apps: RunningApp[] = [];
const logs: string[] = [];

const until = untilLogged(logs);

async function startTestApp(extra: Record<string, unknown> = {}) {
  const config = writeAppConfig(
    github,
    { url: kernel.url, key: KEY },
    {
      listen: { host: '127.0.0.1', port: 0, path: '/hooks' },
      rules: [
        { repository: 'acme/*', environment: 'production', resource: R, job: 'deploy' },
        { repository: 'acme/slow', environment: 'Staging', resource: SLOW },
      ],
      takeUpGrace: '2m',
      runCheckEvery: '1s',
      ...extra,
    },
    // The secret file ends in a newline, as an editor leaves it: the app trims it.
    { secretText: `${github.secret}\n` },
  );
  return startInProcess(config, {
    logs,
    apps,
    github: { budgetMs: 20_000, retry: { baseMs: 50, capMs: 400, maxAttempts: 8 } },
  });
}

/** The fake's record of reviews of a run that it accepted. */
const reviews = (repository: string, runId: number) => reviewCalls(github, repository, runId);
const approvedAt = (repository: string, runId: number) => decidedAt(github, repository, runId);

/** Kernel log lines: `<iso> grant|release|lapse|revoke <resource> <did> <lease id> fence=N`. */
const kernelEvents = (resource: string) =>
  kernelLog(kernel, resource).map(({ atMs, kind, holder, fence }) => ({
    atMs,
    kind,
    holder,
    fence,
  }));

function job(repository: string, runId: number) {
  const tempDir = mkdtempSync(join(tmpdir(), 'lease-gate-app-job-'));
  const options = {
    tempDir,
    inputs: { 'api-url': kernel.url, key: KEY, 'keep-alive': 'true', 'wait-timeout': '20s' },
    env: { GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: String(runId), GITHUB_JOB: 'deploy' },
  };
  return {
    main: () => runStep('main', options),
    post: (state: Record<string, string>) => runStep('post', { ...options, state }),
  };
}

beforeAll(async () => {
  kernel = await startKernelProcess([], {
    LEASE_GATE_KERNEL_KEY: KEY,
    LEASE_GATE_ADMIN_KEY: 'admin-e2e',
  });
  github = await startFakeGitHub({ installations: [77] });
});

afterAll(() => stopAll({ apps }, github, kernel));

describe('lease-gate app (protection rule) end to end', () => {
  it('approves three runs of two repositories one at a time, in arrival order, each after the previous job released', async () => {
    const app = await startTestApp();
    const runs = [
      ['acme/shop', 101],
      ['acme/web', 202],
      ['acme/shop', 303],
    ] as const;
    // GitHub's answers to the first two approvals: a rate limit, then a bad gateway.
    github.fail(/^POST \/repos\/acme\/shop\/actions\/runs\/101\/deployment_protection_rule$/, {
      status: 429,
      headers: { 'retry-after': '1' },
    });
    github.fail(/^POST \/repos\/acme\/web\/actions\/runs\/202\/deployment_protection_rule$/, {
      status: 502,
    });
    for (const [repository, runId] of runs) {
      github.addRun(repository, runId, 'production');
      const sent = await github.deliver(
        app.url,
        'deployment_protection_rule',
        github.protectionRule(repository, runId, 'production'),
      );
      expect(sent.status).toBe(202);
      await until(`run ${runId} queued`, () =>
        logs.some((l) => WEBHOOK.exec(l)?.[1] === String(runId)),
      );
    }
    let previousRelease = 0;
    for (const [index, [repository, runId]] of runs.entries()) {
      await until(`approval of run ${runId}`, () => approvedAt(repository, runId) !== undefined);
      expect(approvedAt(repository, runId)!).toBeGreaterThanOrEqual(previousRelease);
      // Nobody after it is approved yet: one at a time.
      for (const [laterRepo, laterRun] of runs.slice(index + 1))
        expect(approvedAt(laterRepo, laterRun)).toBeUndefined();
      const steps = job(repository, runId);
      const main = await steps.main();
      expect(main.code, main.stdout + main.stderr).toBe(0);
      expect(main.outputs.acquired).toBe('true');
      expect(main.outputs.holder).toMatch(
        new RegExp(`:runs:${runId}:attempts:1:jobs:deploy:protection-rule-\\d+$`),
      );
      expect(main.stdout).toContain('Taken up lease');
      expect(main.stdout).not.toContain('Waiting for');
      const comment = (
        reviews(repository, runId).find((c) => c.status === 204)!.body as { comment: string }
      ).comment;
      expect(comment).toContain(
        `lease ${main.outputs['lease-id']}, fence ${main.outputs.fence}, plane ${kernel.url}`,
      );
      const post = await steps.post(main.state);
      expect(post.code).toBe(0);
      expect(post.stdout).toMatch(/[Rr]eleased/);
      const released = kernelEvents(R).filter(
        (e) => e.kind === 'release' && e.holder === main.outputs.holder,
      );
      expect(released.length).toBeGreaterThan(0);
      previousRelease = released[0]!.atMs;
    }
    // GitHub's 429 and 502 were answered by asking again.
    expect(reviews('acme/shop', 101).map((c) => c.status)).toEqual([429, 204]);
    expect(reviews('acme/web', 202).map((c) => c.status)).toEqual([502, 204]);
    // The kernel's record: grants in arrival order, never a second holder before the first ended.
    const events = kernelEvents(R);
    let holder: string | undefined;
    const granted: string[] = [];
    for (const e of events) {
      if (e.kind === 'grant') {
        expect(holder, `grant to ${e.holder} while ${holder} held`).toBeUndefined();
        holder = e.holder;
        if (granted.at(-1) !== e.holder) granted.push(e.holder);
      } else {
        expect(e.holder).toBe(holder);
        holder = undefined;
      }
    }
    expect(granted.map((did) => /:runs:(\d+):/.exec(did)?.[1])).toEqual(['101', '202', '303']);
    // And the signed ledger agrees: one holder at a time, fences rising.
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-app-ledger-'));
    const exported = await runCli(
      ['ledger', 'export', '--url', kernel.url, '--out', join(dir, 'bundle.json')],
      {
        LEASE_GATE_KERNEL_KEY: KEY,
        INTRAMEDIAL_KEY: KEY,
      },
    );
    expect(exported.code, exported.stderr).toBe(0);
    const verified = await runCli([
      'verify',
      join(dir, 'bundle.json'),
      '--public-key',
      join(dir, 'bundle.json.pub'),
    ]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  }, 180_000);

  it('refuses bad signatures, drops replays and unknown installations, rejects with a reason, and lets a cancelled run leave the queue', async () => {
    const mark = logs.length;
    const app = await startTestApp();
    const patient = await startTestApp({ maxWait: '2s' });
    // Both have read GitHub's deliveries: neither recovers a request sent to the other below.
    await until(
      'both recoveries',
      () => logs.slice(mark).filter((l) => /^recovery: \d+ protection-rule/.test(l)).length >= 2,
    );
    const hold = () =>
      runCli(
        [
          'acquire',
          '--resource',
          SLOW,
          '--api-url',
          kernel.url,
          '--actor-did',
          'did:web:example.com:other',
          '--wait-timeout',
          '0',
        ],
        {
          INTRAMEDIAL_KEY: KEY,
        },
      );
    const lines = (runId: number) => logs.filter((l) => l.includes(`run ${runId} of`));

    // A bad signature: 401, nothing asked of GitHub or the plane.
    github.addRun('acme/shop', 401, 'production');
    const forged = await github.deliver(
      app.url,
      'deployment_protection_rule',
      github.protectionRule('acme/shop', 401, 'production'),
      {
        signWith: 'not-the-secret',
      },
    );
    expect(forged.status).toBe(401);

    // No rule for the repository: rejected with the reason; the same delivery again is dropped.
    github.addRun('other/repo', 402, 'production');
    const first = await github.deliver(
      app.url,
      'deployment_protection_rule',
      github.protectionRule('other/repo', 402, 'production'),
    );
    expect(first.status).toBe(202);
    await until('the rejection of run 402', () => reviews('other/repo', 402).length > 0);
    const again = await github.deliver(
      app.url,
      'deployment_protection_rule',
      github.protectionRule('other/repo', 402, 'production'),
      {
        id: first.id,
      },
    );
    expect(again.status).toBe(200);
    const [rejection] = reviews('other/repo', 402);
    expect(rejection).toMatchObject({
      status: 204,
      body: { state: 'rejected', environment_name: 'production' },
    });
    expect((rejection!.body as { comment: string }).comment).toContain('no rule');

    // An installation GitHub does not know: no token, no place in a queue, no review.
    github.addRun('acme/shop', 403, 'production');
    await github.deliver(
      app.url,
      'deployment_protection_rule',
      github.protectionRule('acme/shop', 403, 'production', 999),
    );
    await until('the drop of run 403', () => lines(403).some((l) => l.includes('dropped')));
    expect(
      github.calls.some(
        (c) => c.path === '/app/installations/999/access_tokens' && c.status === 404,
      ),
    ).toBe(true);

    // Waiting longer than the maximum: rejected, saying why.
    expect((await hold()).code).toBe(0);
    github.addRun('acme/slow', 404, 'staging');
    await github.deliver(
      patient.url,
      'deployment_protection_rule',
      github.protectionRule('acme/slow', 404, 'staging'),
    );
    await until('the rejection of run 404', () => reviews('acme/slow', 404).length > 0, 20_000);
    expect(reviews('acme/slow', 404)[0]!.body).toMatchObject({ state: 'rejected' });
    expect((reviews('acme/slow', 404)[0]!.body as { comment: string }).comment).toContain(
      'longer than the configured maximum (2s)',
    );
    // While it waited, GitHub was shown who holds the resource.
    expect(
      github.calls.some(
        (c) =>
          /^\/repos\/acme\/slow\/deployments\/\d+\/statuses$/.test(c.path) &&
          (c.body as { description: string }).description.includes(
            'held by did:web:example.com:other',
          ),
      ),
    ).toBe(true);

    // Cancelled while waiting: the workflow_run event, and a missed event caught by the status check.
    const queue = async () => {
      const answer = await fetch(`${kernel.url}/api/v1/kernel/resources`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      const body = (await answer.json()) as {
        resources: Array<{ resource: string; queue: Array<{ actorDid: string }> }>;
      };
      return body.resources.find((r) => r.resource === SLOW)?.queue.map((w) => w.actorDid) ?? [];
    };
    expect((await hold()).code).toBe(0);
    github.addRun('acme/slow', 405, 'staging');
    github.addRun('acme/slow', 406, 'staging');
    await github.deliver(
      app.url,
      'deployment_protection_rule',
      github.protectionRule('acme/slow', 405, 'staging'),
    );
    await github.deliver(
      app.url,
      'deployment_protection_rule',
      github.protectionRule('acme/slow', 406, 'staging'),
    );
    await until(
      'runs 405 and 406 in the queue',
      () =>
        lines(405).some((l) => l.includes('waiting for')) &&
        lines(406).some((l) => l.includes('waiting for')),
    );
    expect((await queue()).filter((did) => /:runs:40[56]:/.test(did))).toHaveLength(2);
    expect(
      (await github.deliver(app.url, 'workflow_run', github.workflowRunCompleted('acme/slow', 405)))
        .status,
    ).toBe(202);
    github.run('acme/slow', 406)!.status = 'completed';
    for (const runId of [405, 406]) {
      await until(`run ${runId} leaving the queue`, () =>
        lines(runId).some((l) => l.includes('the run ended while it waited')),
      );
    }
    expect((await queue()).filter((did) => /:runs:40[56]:/.test(did))).toEqual([]);
    expect([...reviews('acme/slow', 405), ...reviews('acme/slow', 406)]).toEqual([]);
    // Nothing at all was asked for the forged delivery's run.
    expect(github.calls.filter((c) => c.path.includes('/runs/401'))).toEqual([]);
    expect(lines(401)).toEqual([]);
    // The replayed delivery was never worked on: one review only.
    expect(reviews('other/repo', 402)).toHaveLength(1);
  }, 120_000);
});
