import type { ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
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
import { pause } from './support/wait.js';

/**
 * The approval and its lease (issue #54, items 4, 5 and 14), against a fake GitHub on
 * loopback and a real kernel (the built CLI) with 6-second leases: a GitHub that answers
 * the approval 502 for longer than a lease lasts never gets two runs approved; a lease
 * revoked while the approval is retried is never approved; after kill -9 an approved
 * run's lease is kept for its job; a run its reviewers approved late is queued again
 * after a restart at that approval; SIGTERM stops the app at once while GitHub fails.
 */

const KEY = 'kernel-key-approval';
const ADMIN = 'admin-approval';
const TTL_MS = 6_000;
const RESOURCES = {
  outage: 'lock:deploy/outage',
  revoked: 'lock:deploy/revoked',
  killed: 'lock:deploy/killed',
  order: 'lock:deploy/order',
} as const;
type Env = keyof typeof RESOURCES;

let kernel: KernelProcess;
let github: FakeGitHub;
let plane: PlaneClient;
const apps: RunningApp[] = [];
const children: ChildProcess[] = [];
const logs: string[] = [];

const until = untilLogged(logs, 60_000);

function writeConfig(port: number, githubApiUrl = github.url): string {
  return writeAppConfig(
    github,
    { url: kernel.url, key: KEY },
    {
      githubApiUrl,
      listen: { host: '127.0.0.1', port, path: '/' },
      rules: Object.entries(RESOURCES).map(([environment, resource]) => ({
        repository: 'acme/*',
        environment,
        resource,
      })),
      takeUpGrace: '10m',
      runCheckEvery: '1m',
      deploymentStatus: false,
    },
    { dirPrefix: 'lease-gate-app-approval-' },
  );
}

const inProcessApp = (name: string) =>
  startInProcess(writeConfig(0), {
    logs,
    apps,
    name,
    // Retried for up to a minute: a GitHub failing for several lease times.
    github: { budgetMs: 60_000, retry: { baseMs: 200, capMs: 400, maxAttempts: 200 } },
  });

const { decided, approvedAt, reviewsOf, newRun, complete, logged, processApp, expectOneAtATime } =
  appTestKit<Env>({
    github: () => github,
    kernel: () => kernel,
    logs,
    children,
    repository: 'acme/shop',
  });

/** GitHub answers the next `count` approval calls of the run 502 (nothing applied). */
function badGateway(runId: number, count: number) {
  const route = new RegExp(
    `^POST /repos/acme/shop/actions/runs/${runId}/deployment_protection_rule$`,
  );
  for (let n = 0; n < count; n += 1) github.fail(route, { status: 502 });
}

beforeAll(async () => {
  kernel = await startKernelProcess(['--ttl-ms', String(TTL_MS), '--lock-delay-ms', '0'], {
    LEASE_GATE_KERNEL_KEY: KEY,
    LEASE_GATE_ADMIN_KEY: ADMIN,
  });
  github = await startFakeGitHub({ installations: [77] });
  plane = createPlaneClient({ apiUrl: kernel.url, key: KEY });
});

afterAll(() => stopAll({ children, apps }, plane, github, kernel));

describe('lease-gate app: the approval and its lease', () => {
  it('keeps the lease alive while GitHub answers the approval 502 for longer than a lease lasts: one run approved at a time', async () => {
    const R = RESOURCES.outage;
    const app = await inProcessApp('outage');
    const a = newRun(801, 'outage');
    // About 45 answers 0.2-0.4 s apart: longer than two lease times.
    badGateway(801, 45);
    await github.deliver(app.url, 'deployment_protection_rule', a.payload);
    await until('run 801 granted', () => reviewsOf(801).length > 0);
    const b = newRun(802, 'outage');
    await github.deliver(app.url, 'deployment_protection_rule', b.payload);
    await until('the approval of run 801', () => approvedAt(801) !== undefined);
    expect(reviewsOf(801).length).toBeGreaterThan(30);
    // Run 802 waited behind run 801's lease the whole time, renewed through the outage.
    expect(approvedAt(802)).toBeUndefined();
    expect((await plane.status(R))?.holder).toBe(a.did);
    await complete(801, app.url);
    await until('the approval of run 802', () => approvedAt(802) !== undefined);
    expect(approvedAt(802)!).toBeGreaterThan(approvedAt(801)!);
    expectOneAtATime(R, [801, 802]);
    await complete(802, app.url);
  }, 120_000);

  it('never approves a lease revoked while the approval call is retried', async () => {
    const R = RESOURCES.revoked;
    const app = await inProcessApp('revoked');
    const a = newRun(811, 'revoked');
    badGateway(811, 30);
    await github.deliver(app.url, 'deployment_protection_rule', a.payload);
    await until('run 811 granted and its approval retried', () => reviewsOf(811).length >= 2);
    const revoked = await runCli(
      ['revoke', '--resource', R, '--api-url', kernel.url, '--reason', 'incident 9'],
      { LEASE_GATE_KEY: KEY, LEASE_GATE_ADMIN_KEY: ADMIN },
    );
    expect(revoked.code, revoked.stderr).toBe(0);
    await until('run 811 rejected', () => decided(811, 'rejected') !== undefined);
    const retriesThen = reviewsOf(811).length;
    await pause(2_000);
    // Nothing more was sent: no approval, no retry.
    expect(reviewsOf(811).length).toBe(retriesThen);
    expect(approvedAt(811)).toBeUndefined();
    expect(logged('revoked', /run 811 of .*not approved/)).toBe(true);
  }, 120_000);

  it('after kill -9 keeps the lease of a run approved before, so the next run waits for its job', async () => {
    const R = RESOURCES.killed;
    const port = await freePort();
    const config = writeConfig(port);
    const url = `http://127.0.0.1:${port}`;
    const first = await processApp('killed', config);
    const a = newRun(821, 'killed');
    await github.deliver(url, 'deployment_protection_rule', a.payload);
    await until('the approval of run 821', () => approvedAt(821) !== undefined);
    first.child.kill('SIGKILL');
    await first.exited;
    const killedAt = Date.now();
    const second = await inProcessApp('restarted');
    await until('the recovery', () => logged('restarted', /recovery: \d+ protection-rule/));
    const b = newRun(822, 'killed');
    await github.deliver(second.url, 'deployment_protection_rule', b.payload);
    // Three lease times after the kill: nobody kept it before, and run 822 was approved.
    await pause(Math.max(0, killedAt + 3 * TTL_MS - Date.now()));
    expect(approvedAt(822)).toBeUndefined();
    expect((await plane.status(R))?.holder).toBe(a.did);
    expect(logged('restarted', /run 821 of .*approved before the restart/)).toBe(true);
    await complete(821, second.url);
    await until('the approval of run 822', () => approvedAt(822) !== undefined);
    expectOneAtATime(R, [821, 822]);
    await complete(822, second.url);
  }, 120_000);

  it('queues a run its reviewers approved late, after a restart, behind the runs that came before the approval', async () => {
    github.requireReviewers('acme/reviewed', 'order');
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const late = newRun(831, 'order', 'acme/reviewed');
    await github.deliver(nowhere, 'deployment_protection_rule', late.payload);
    const early = newRun(832, 'order');
    await github.deliver(nowhere, 'deployment_protection_rule', early.payload);
    // Run 831's reviewers approve after run 832's request: live, 831 would join behind 832.
    await github.deliver(
      nowhere,
      'deployment_review',
      github.review('acme/reviewed', 831, 'order', 'approved'),
    );
    const app = await inProcessApp('order');
    await until('the first approval', () =>
      [approvedAt(831, 'acme/reviewed'), approvedAt(832)].some((at) => at !== undefined),
    );
    expect(approvedAt(832)).toBeDefined();
    expect(approvedAt(831, 'acme/reviewed')).toBeUndefined();
    await complete(832, app.url);
    await until('the approval of run 831', () => approvedAt(831, 'acme/reviewed') !== undefined);
    expectOneAtATime(RESOURCES.order, [832, 831]);
  }, 120_000);

  it('stops within seconds on SIGTERM while GitHub answers nothing but 502, and listens during recovery', async () => {
    const down: Server = createHttpServer((_req, res) =>
      res.writeHead(502).end('{"message":"Bad Gateway"}'),
    );
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    try {
      const port = await freePort();
      const downUrl = `http://127.0.0.1:${(down.address() as { port: number }).port}`;
      const app = await processApp('stopping', writeConfig(port, downUrl));
      const run = newRun(841, 'outage');
      // Recovery is still retrying GitHub: the delivery is taken, and waits for it.
      const sent = await github.deliver(
        `http://127.0.0.1:${port}`,
        'deployment_protection_rule',
        run.payload,
      );
      expect(sent.status).toBe(202);
      await pause(1_000);
      const stoppedAt = Date.now();
      app.child.kill('SIGTERM');
      const code = await Promise.race([app.exited, pause(30_000).then(() => 'still running')]);
      expect(code).toBe(0);
      // GitHub's retry budget is 2 minutes: stopping waits for none of it.
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    } finally {
      down.closeAllConnections();
      await new Promise<void>((resolve) => down.close(() => resolve()));
    }
  }, 120_000);
});
