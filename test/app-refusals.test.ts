import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/server.js';
import { keyHash } from '../src/kernel/auth/keys.js';
import { ANY_JOB, appDid } from '../src/lease/take-up.js';
import {
  kernelEvents as kernelLog,
  reviewCalls,
  writeAppConfig,
  inProcessApp as startInProcess,
  stopAll,
  untilLogged,
} from './support/app-harness.js';
import { startFakeGitHub, type FakeGitHub } from './support/fake-github-app.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { PROD } from './support/names.js';

/**
 * The protection-rule app's refusals and its take-up grace, end to end: a fake
 * GitHub on loopback, the app in-process, a real kernel (the built CLI) with
 * 6-second leases and a scoped key. Each refusal is `state: rejected` with a
 * comment saying why; an approved run whose job never takes up its lease lets
 * it lapse, and the next run is approved.
 */

const CANARY = 'lock:deploy/canary';
const GRACE = 'lock:deploy/grace';
const KEY = 'kernel-key-refusals';
const SCOPED = 'scoped-key-for-the-app';
const ADMIN = 'admin-refusals';

let kernel: KernelProcess;
let github: FakeGitHub;
const apps: RunningApp[] = [];
const logs: string[] = [];

const until = untilLogged(logs);

async function startTestApp(planeKey: string, extra: Record<string, unknown> = {}) {
  const config = writeAppConfig(
    github,
    { url: kernel.url, key: planeKey },
    {
      listen: { host: '127.0.0.1', port: 0, path: '/' },
      rules: [
        { repository: 'acme/*', environment: 'production', resource: PROD },
        { repository: 'acme/shop', environment: 'canary', resource: CANARY },
        { repository: 'acme/shop', environment: 'grace', resource: GRACE },
      ],
      takeUpGrace: '2m',
      runCheckEvery: '1m',
      deploymentStatus: false,
      ...extra,
    },
    { dirPrefix: 'lease-gate-app-refusals-' },
  );
  return startInProcess(config, {
    logs,
    apps,
    github: { budgetMs: 10_000, retry: { baseMs: 50, capMs: 400, maxAttempts: 5 } },
  });
}

const reviews = (repository: string, runId: number) =>
  reviewCalls(github, repository, runId).filter((c) => c.status === 204);
const reviewOf = (repository: string, runId: number) =>
  reviews(repository, runId)[0]?.body as { state: string; comment: string } | undefined;

async function request(
  app: RunningApp,
  repository: string,
  runId: number,
  environment: string,
  addRun = true,
) {
  if (addRun) github.addRun(repository, runId, environment);
  const sent = await github.deliver(
    app.url,
    'deployment_protection_rule',
    github.protectionRule(repository, runId, environment),
  );
  expect(sent.status).toBe(202);
}

/** Kernel log lines: `<iso> grant|release|lapse|revoke <resource> <did> <lease id> fence=N`. */
const kernelEvents = (resource: string) =>
  kernelLog(kernel, resource).map(({ kind, holder }) => ({ kind, holder }));

beforeAll(async () => {
  github = await startFakeGitHub({ installations: [77] });
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-app-keys-'));
  // The app's scoped key may act only as runs of acme/shop: the kernel's policy.
  writeFileSync(
    join(dir, 'keys.json'),
    JSON.stringify({
      keys: [
        { name: 'operators', sha256: keyHash(KEY), actors: ['*'], resources: ['*'] },
        {
          name: 'protection-rule app',
          sha256: keyHash(SCOPED),
          actors: ['did:web:github.com:acme:shop:*'],
          resources: [PROD],
        },
      ],
    }),
  );
  kernel = await startKernelProcess(['--ttl-ms', '6000', '--keys', join(dir, 'keys.json')], {
    LEASE_GATE_ADMIN_KEY: ADMIN,
  });
});

afterAll(() => stopAll({ apps }, github, kernel));

describe('lease-gate app refuses with a reason', () => {
  it('rejects a run of an environment no rule names', async () => {
    const app = await startTestApp(KEY);
    await request(app, 'acme/shop', 601, 'qa');
    await until('the review of run 601', () => reviewOf('acme/shop', 601) !== undefined);
    expect(reviewOf('acme/shop', 601)).toMatchObject({ state: 'rejected' });
    expect(reviewOf('acme/shop', 601)!.comment).toContain(
      "no rule in the app's config for acme/shop and environment qa",
    );
  });

  it("rejects a run the kernel's policy does not let the app's key act as, and approves one it does", async () => {
    const app = await startTestApp(SCOPED);
    await request(app, 'acme/web', 611, 'production');
    await until('the review of run 611', () => reviewOf('acme/web', 611) !== undefined);
    const refused = reviewOf('acme/web', 611)!;
    expect(refused.state).toBe('rejected');
    expect(refused.comment).toMatch(/does not let this run have lock:deploy\/production/);
    expect(refused.comment).toContain('403');
    expect(refused.comment).not.toContain(SCOPED);
    // The same key for a run it may act as: approved (and given back after).
    await request(app, 'acme/shop', 612, 'production');
    await until('the review of run 612', () => reviewOf('acme/shop', 612) !== undefined);
    expect(reviewOf('acme/shop', 612)).toMatchObject({ state: 'approved' });
    github.run('acme/shop', 612)!.status = 'completed';
    await github.deliver(app.url, 'workflow_run', github.workflowRunCompleted('acme/shop', 612));
    await until('run 612 given back', () =>
      logs.some((l) => l.includes('run 612 of') && l.includes('the run completed')),
    );
  });

  it('rejects a run whose lease was revoked, and says so when it revokes a kept one', async () => {
    const app = await startTestApp(KEY);
    // A kept lease revoked before its job took it up: the app stops keeping it, saying why.
    await request(app, 'acme/shop', 621, 'canary');
    await until('the approval of run 621', () => reviewOf('acme/shop', 621) !== undefined);
    expect(reviewOf('acme/shop', 621)).toMatchObject({ state: 'approved' });
    const revoke = (reason: string) =>
      runCli(['revoke', '--resource', CANARY, '--api-url', kernel.url, '--reason', reason], {
        LEASE_GATE_KEY: KEY,
        LEASE_GATE_ADMIN_KEY: ADMIN,
      });
    expect((await revoke('incident 7')).code).toBe(0);
    await until('the app to hear the revoke', () =>
      logs.some(
        (l) => l.includes('run 621 of') && l.includes('an operator revoked it: incident 7'),
      ),
    );
    // A run whose DID was revoked while its rule is still pending (the app stopped between
    // the grant and the approval; the lease, held in its name, was revoked) is rejected
    // when GitHub delivers the request again.
    github.addRun('acme/shop', 622, 'canary');
    const payload = github.protectionRule('acme/shop', 622, 'canary');
    const did = appDid(
      {
        serverUrl: 'https://github.com',
        repository: 'acme/shop',
        runId: '622',
        runAttempt: '1',
        job: ANY_JOB,
      },
      payload.deployment.id,
    );
    const taken = await runCli(
      [
        'acquire',
        '--resource',
        CANARY,
        '--api-url',
        kernel.url,
        '--actor-did',
        did,
        '--wait-timeout',
        '0',
      ],
      { LEASE_GATE_KEY: KEY },
    );
    expect(taken.code, taken.stderr).toBe(0);
    expect((await revoke('incident 8')).code).toBe(0);
    expect((await github.deliver(app.url, 'deployment_protection_rule', payload)).status).toBe(202);
    await until('the review of run 622', () => reviewOf('acme/shop', 622) !== undefined);
    expect(reviewOf('acme/shop', 622)).toMatchObject({ state: 'rejected' });
    expect(reviewOf('acme/shop', 622)!.comment).toContain(`${CANARY} is revoked for this run`);
    expect(reviewOf('acme/shop', 622)!.comment).toContain('incident 8');
  });

  it('lets an approved lease that no job takes up lapse after the grace, then approves the next run', async () => {
    const app = await startTestApp(KEY, { takeUpGrace: '1s' });
    await request(app, 'acme/shop', 631, 'grace');
    await until('the approval of run 631', () => reviewOf('acme/shop', 631) !== undefined);
    await request(app, 'acme/shop', 632, 'grace');
    await until('run 632 queued', () =>
      logs.some((l) => l.includes('run 632 of') && l.includes('queued for')),
    );
    // No job of run 631 ever starts: the app stops renewing after 1 s, the kernel lapses it.
    await until('the approval of run 632', () => reviewOf('acme/shop', 632) !== undefined, 40_000);
    expect(reviewOf('acme/shop', 631)).toMatchObject({ state: 'approved' });
    expect(reviewOf('acme/shop', 632)).toMatchObject({ state: 'approved' });
    expect(
      logs.some((l) => l.includes('run 631 of') && l.includes('the take-up grace ended')),
    ).toBe(true);
    const events = kernelEvents(GRACE).map((e) => [e.kind, /:runs:(\d+):/.exec(e.holder)?.[1]]);
    expect(events.slice(0, 3)).toEqual([
      ['grant', '631'],
      ['lapse', '631'],
      ['grant', '632'],
    ]);
  }, 60_000);
});
