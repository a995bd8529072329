import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { startApp, type AppOptions, type RunningApp } from '../../src/app/server.js';
import { ANY_JOB, appDid } from '../../src/lease/take-up.js';
import type { FakeGitHub } from './fake-github-app.js';
import type { KernelProcess } from './kernel-process.js';
import { until } from './wait.js';

/**
 * What the protection-rule app's tests share: its config file written for a fake GitHub
 * and a kernel, the app as its own process, a run and its requests, GitHub's record of
 * the reviews, and the kernel's record of its leases.
 */

/**
 * An app.json in a directory of its own, beside the files it names: the App's key, the
 * webhook secret (`secretText`, the secret as the file holds it) and the plane's key.
 * `config` is the rest of it (listen, rules, timings).
 */
export function writeAppConfig(
  github: FakeGitHub,
  plane: { url: string; key: string },
  config: Record<string, unknown>,
  { dirPrefix = 'lease-gate-app-', secretText = github.secret } = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  writeFileSync(join(dir, 'app.pem'), github.privateKeyPem);
  writeFileSync(join(dir, 'secret'), secretText);
  writeFileSync(join(dir, 'plane-key'), plane.key);
  const file = {
    appId: github.appId,
    privateKeyFile: 'app.pem',
    webhookSecretFile: 'secret',
    githubApiUrl: github.url,
    plane: { url: plane.url, keyFile: 'plane-key' },
    ...config,
  };
  writeFileSync(join(dir, 'app.json'), JSON.stringify(file));
  return join(dir, 'app.json');
}

/**
 * `lease-gate app` as its own process, from source: what a SIGKILL or a SIGTERM ends.
 * Its lines go to `logs` as `[name] line`; it is pushed on `children` (for the test to
 * kill at the end) and returned once it says it listens.
 */
export async function spawnApp(
  name: string,
  config: string,
  { logs, children }: { logs: string[]; children: ChildProcess[] },
) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/bin/cli.ts', 'app', '--config', config],
    { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let output = '';
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    const lines = output.split('\n');
    output = lines.pop() ?? '';
    for (const line of lines) logs.push(`[${name}] ${line}`);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await until(
    `${name} listening`,
    () => logs.some((l) => l.startsWith(`[${name}] lease-gate app listening on`)),
    { timeoutMs: 60_000, context: () => logs.join('\n') },
  );
  return {
    child,
    exited,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A run waiting on `environment`, GitHub's request for it (not yet sent) and the DID the app asks as. */
export function newRun(github: FakeGitHub, repository: string, runId: number, environment: string) {
  github.addRun(repository, runId, environment);
  const payload = github.protectionRule(repository, runId, environment);
  const did = appDid(
    {
      serverUrl: 'https://github.com',
      repository,
      runId: String(runId),
      runAttempt: '1',
      job: ANY_JOB,
    },
    payload.deployment.id,
  );
  return { runId, payload, did };
}

/** The run ends (its jobs are done): GitHub says so to each app given. */
export async function completeRun(
  github: FakeGitHub,
  repository: string,
  runId: number,
  to: string[],
) {
  const payload = github.workflowRunCompleted(repository, runId);
  for (const url of to) await github.deliver(url, 'workflow_run', payload);
}

/** GitHub's record of the app's review calls for a run (`POST …/deployment_protection_rule`). */
export const reviewCalls = (github: FakeGitHub, repository: string, runId: number) =>
  github.calls.filter(
    (c) => c.path === `/repos/${repository}/actions/runs/${runId}/deployment_protection_rule`,
  );

/** When GitHub accepted the run's review with this state (204), if it did. */
export const decidedAt = (
  github: FakeGitHub,
  repository: string,
  runId: number,
  state: 'approved' | 'rejected' = 'approved',
) =>
  reviewCalls(github, repository, runId).find(
    (c) => c.status === 204 && (c.body as { state: string }).state === state,
  )?.atMs;

/** Kernel log lines: `<iso> grant|release|lapse|revoke <resource> <did> <lease id> fence=N`. */
export const kernelEvents = (kernel: KernelProcess, resource: string) =>
  kernel
    .output()
    .split('\n')
    .map((line) => line.split(' '))
    .filter((w) => w[2] === resource && /^(grant|release|lapse|revoke)$/.test(w[1] ?? ''))
    .map((w) => ({
      atMs: Date.parse(w[0] ?? ''),
      kind: w[1]!,
      holder: w[3]!,
      fence: Number(w[5]?.slice(6)),
      run: /:runs:(\d+):/.exec(w[3] ?? '')?.[1],
    }));

/** One holder at a time of `resource`, as the kernel logged it, and the runs granted in this order. */
export function expectOneAtATime(kernel: KernelProcess, resource: string, order: number[]) {
  let holder: string | undefined;
  const granted: string[] = [];
  for (const e of kernelEvents(kernel, resource)) {
    if (e.kind === 'grant') {
      expect(holder, `grant to run ${e.run} while run ${holder} held ${resource}`).toBeUndefined();
      holder = e.run;
      if (granted.at(-1) !== e.run) granted.push(e.run!);
    } else {
      expect(e.run).toBe(holder);
      holder = undefined;
    }
  }
  expect(granted).toEqual(order.map(String));
}

/**
 * The app in this process, from the config file, its lines to `logs` (`[name] line` when
 * named) and no environment of the machine's; `github` is its retry budget for GitHub's
 * calls. Pushed on `apps`, for the test to close at the end.
 */
export async function inProcessApp(
  config: string,
  o: {
    logs: string[];
    apps: RunningApp[];
    name?: string;
    github: NonNullable<AppOptions['github']>;
  },
): Promise<RunningApp> {
  const app = await startApp(loadConfig(config, {}), {
    log: (line) => o.logs.push(o.name === undefined ? line : `[${o.name}] ${line}`),
    env: {},
    github: o.github,
  });
  o.apps.push(app);
  return app;
}

/**
 * The end of an app test: the app processes killed (SIGKILL), the in-process apps closed,
 * then the rest in the order given (clients before the servers they use), `close()` or,
 * for a process, `stop()`.
 */
export async function stopAll(
  { children = [], apps }: { children?: ChildProcess[]; apps: RunningApp[] },
  ...rest: Array<{ close(): Promise<unknown> } | { stop(): Promise<unknown> } | undefined>
): Promise<void> {
  for (const child of children) child.kill('SIGKILL');
  for (const app of apps) await app.close();
  for (const thing of rest) if (thing) await ('close' in thing ? thing.close() : thing.stop());
}

/** `until` for an app test: it fails telling every line the apps logged so far. */
export const untilLogged =
  (logs: string[], defaultTimeoutMs = 30_000) =>
  (what: string, check: () => boolean | Promise<boolean>, timeoutMs = defaultTimeoutMs) =>
    until(what, check, { timeoutMs, context: () => logs.join('\n') });

/**
 * What an app test says of its runs, over its fake GitHub and kernel (getters: started in
 * `beforeAll`) and the lines its apps logged: runs of `repository` unless another is named,
 * GitHub's record of their reviews, and the app as its own process.
 */
export function appTestKit<Env extends string = string>(o: {
  github: () => FakeGitHub;
  kernel: () => KernelProcess;
  logs: string[];
  children: ChildProcess[];
  repository: string;
}) {
  const decided = (
    runId: number,
    state: 'approved' | 'rejected' = 'approved',
    repository = o.repository,
  ) => decidedAt(o.github(), repository, runId, state);
  return {
    decided,
    approvedAt: (runId: number, repository = o.repository) =>
      decided(runId, 'approved', repository),
    reviewsOf: (runId: number, repository = o.repository) =>
      reviewCalls(o.github(), repository, runId),
    /** A run waiting on `environment`, and GitHub's request for it (not yet sent). */
    newRun: (runId: number, environment: Env, repository = o.repository) =>
      newRun(o.github(), repository, runId, environment),
    /** The run ends (its jobs are done): GitHub says so to each app given. */
    complete: (runId: number, ...to: string[]) => completeRun(o.github(), o.repository, runId, to),
    /** Whether the app named `name` logged a line that matches. */
    logged: (name: string, pattern: RegExp) =>
      o.logs.some((l) => l.startsWith(`[${name}] `) && pattern.test(l)),
    /** `lease-gate app` as its own process, from source: what a SIGKILL or a SIGTERM ends. */
    processApp: (name: string, config: string) => spawnApp(name, config, o),
    /** One holder at a time, and the runs granted in this order. */
    expectOneAtATime: (resource: string, order: number[]) =>
      expectOneAtATime(o.kernel(), resource, order),
  };
}
