import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/app/config.js';
import { startApp, type RunningApp } from '../src/app/server.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { startFakeGitHub, type FakeGitHub } from './support/fake-github-app.js';
import { runMain } from './support/cli-main.js';
import { untilLogged } from './support/app-harness.js';

/**
 * `lease-gate app smoke` (issue 55, item 8): a signed sample delivery sent to a real app
 * (a fake GitHub behind it, a real kernel) says whether the URL and the secret are right,
 * without GitHub: the app accepts it, ignores it and calls GitHub for nothing of it.
 */

let kernel: RunningKernel;
let github: FakeGitHub;
let app: RunningApp;
let dir: string;
const logs: string[] = [];

beforeAll(async () => {
  kernel = await startKernelServer({ log: () => undefined });
  github = await startFakeGitHub();
  dir = mkdtempSync(join(tmpdir(), 'lease-gate-smoke-'));
  writeFileSync(join(dir, 'app.pem'), github.privateKeyPem);
  writeFileSync(join(dir, 'secret'), `${github.secret}\n`);
  writeFileSync(join(dir, 'wrong'), 'not-the-secret\n');
  writeFileSync(
    join(dir, 'app.json'),
    JSON.stringify({
      appId: github.appId,
      privateKeyFile: 'app.pem',
      webhookSecretFile: 'secret',
      githubApiUrl: github.url,
      plane: { url: kernel.url },
      listen: { host: '127.0.0.1', port: 0, path: '/webhook' },
      rules: [
        { repository: 'acme/*', environment: 'production', resource: 'lock:deploy/production' },
      ],
    }),
  );
  app = await startApp(loadConfig(join(dir, 'app.json'), {}), {
    log: (line) => logs.push(line),
    env: {},
  });
});

afterAll(async () => {
  await app?.close();
  await github?.close();
  await kernel?.close();
});

const cli = (args: string[]) => runMain(args);

const until = untilLogged(logs);
/** `lease-gate app smoke` of `url` with the secret in `file` (of the test's directory). */
const smoke = (url: string, file: string) =>
  cli(['app', 'smoke', '--url', url, '--secret-file', join(dir, file)]);

describe('lease-gate app smoke', () => {
  it('says OK when the app takes the signed sample, which it ignores without asking GitHub', async () => {
    const before = github.calls.length;
    const got = await cli(['app', 'smoke', '--url', app.url, '--secret-file', join(dir, 'secret')]);
    expect(got.code, got.err).toBe(0);
    expect(got.out).toMatch(
      /^OK: the app accepted the signed deployment_protection_rule delivery lease-gate-smoke-[0-9a-f-]+ \(202\): the URL reaches it and the webhook secret matches\./,
    );
    const id = /delivery (lease-gate-smoke-[0-9a-f-]+)/.exec(got.out)![1]!;
    await until('the app to read the sample', () =>
      logs.some((l) => l.includes(`delivery ${id}: deployment_callback_url names no run`)),
    );
    // Nothing of the sample reached GitHub (no token for its installation, no review).
    expect(github.calls.slice(before).filter((c) => !c.path.startsWith('/app/hook/'))).toEqual([]);
    expect(app.waiting()).toBe(0);
  });

  it('names what is wrong: the secret, the path, the URL', async () => {
    const wrong = await smoke(app.url, 'wrong');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('FAIL: the app refused the signature (401');
    expect(wrong.err).toContain('--secret-file is not the secret in its webhookSecretFile');

    const path = await smoke(app.url.replace('/webhook', '/hooks'), 'secret');
    expect(path.code).toBe(1);
    expect(path.err).toContain('FAIL: 404');
    expect(path.err).toContain("Is it the app's listen.path");

    const plain = await smoke('http://gate.example.com/webhook', 'secret');
    expect(plain.code).toBe(2);
    expect(plain.err).toContain(
      "Invalid --url 'http://gate.example.com/webhook'. Expected the webhook URL GitHub is given, https://",
    );
    const noSecret = await cli(['app', 'smoke', '--url', app.url]);
    expect(noSecret).toMatchObject({ code: 2, err: expect.stringContaining('--secret-file FILE') });
  });

  it('is in app --help, beside the three events the app takes', async () => {
    const help = await cli(['app', '--help']);
    expect(help.code).toBe(0);
    for (const event of ['deployment_protection_rule', 'workflow_run', 'deployment_review'])
      expect(help.out).toContain(event);
    expect(help.out).toContain('lease-gate app smoke --url URL --secret-file FILE');
  });
});
