import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/http/client.js';
import { urlForDisplay } from '../src/http/url-display.js';
import { startKernelServer } from '../src/kernel/http/server.js';
import { Notifier } from '../src/kernel/notify/notify.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { HealthChecks, parseHealthCheck } from '../src/kernel/service/health-checks.js';
import { Ledger } from '../src/ledger/ledger.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { runCli, startKernelProcess } from './support/kernel-process.js';
import { startReceiver } from './support/notify-receiver.js';
import { R } from './support/names.js';
import { cleanupsAfterEach } from './support/cleanup.js';
import { writePolicy } from './support/policy.js';

/**
 * A configured URL's credentials and query (#54): nothing of it beyond origin and path
 * reaches a reason, the signed ledger, the overview, a log line or a notification, on any
 * failure path; and a check's `user:password@` is sent, as HTTP Basic.
 */

const SECRETS = ['s3cr3t', 'pa55', 'token='];
const SECRET = 'notify-secret-of-16-chars';

const cleanups = cleanupsAfterEach();
const dir = mkdtempSync(join(tmpdir(), 'lease-gate-url-redaction-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const expectNoSecret = (text: string, what: string) => {
  for (const secret of SECRETS) expect(text, `${what} holds ${secret}`).not.toContain(secret);
};

/** A loopback server answering with `handle`, closed after the test. */
async function server(handle: Parameters<typeof createServer>[1]): Promise<number> {
  const s: Server = createServer(handle);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve))));
  return (s.address() as AddressInfo).port;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/**
 * A kernel with one check of `url` and a notifier to a loopback receiver; after the first
 * poll: the ledger, the overview, every log line and the notifications, as text.
 */
async function oneCheck(url: string, timeoutMs = 2_000) {
  const hook = await startReceiver(0);
  cleanups.push(hook.close);
  const lines: string[] = [];
  const notifier = new Notifier({ urls: [hook.url], secret: SECRET, log: (l) => lines.push(l) });
  const http = createHttpClient({ env: {} });
  let polled: () => void = () => undefined;
  const firstPoll = new Promise<void>((resolve) => (polled = resolve));
  const checks = new HealthChecks({
    checks: [parseHealthCheck(`${R}=${url}`)],
    intervalMs: 60_000,
    freezeHeld: false,
    http,
    timeoutMs,
    now: Date.now,
    // One poll: the next waits until the test ends.
    sleep: (_ms, signal) => {
      polled();
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
    },
    log: (line) => lines.push(line),
  });
  const kernel = await startKernelServer({
    table: new ResourceTable({ ttlMs: 30_000 }),
    ledger: new Ledger(generateKeyPairSync('ed25519').privateKey),
    port: 0,
    onService: (service) => {
      const told = [notifier.attach(service), checks.attach(service)];
      return {
        health: () => Object.assign({}, ...told.map((t) => t.health())) as Record<string, unknown>,
      };
    },
    log: (line) => lines.push(line),
  });
  cleanups.push(async () => {
    await checks.close();
    await notifier.close(100);
    await http.close();
    await kernel.close();
  });
  await firstPoll;
  const overview = await (await fetch(`${kernel.url}/api/v1/kernel/resources`)).text();
  const { bundle } = (await fetchLedger(kernel.url)) as unknown as {
    bundle: { entries: Array<{ entry: { kind: string; reason?: string } }> };
  };
  const entries = bundle.entries.map((e) => e.entry);
  const notes = entries.length ? await hook.notifications(entries.length) : [];
  return { entries, overview, lines, notes: hook.received.map((r) => r.body), parsed: notes };
}

/** Asserts the check failed with `words`, and that no secret is in any of the four places. */
async function expectFailedClean(url: string, words: RegExp, timeoutMs?: number) {
  const seen = await oneCheck(url, timeoutMs);
  expect(seen.entries.map((e) => e.kind)).toEqual(['freeze']);
  expect(seen.entries[0]!.reason).toMatch(words);
  expect(seen.notes.length).toBe(1);
  expectNoSecret(JSON.stringify(seen.entries), 'the ledger');
  expectNoSecret(seen.overview, 'the overview');
  expectNoSecret(seen.lines.join('\n'), 'the log');
  expectNoSecret(seen.notes.join('\n'), 'the notification');
  return seen;
}

describe('a failing health check keeps its URL secrets out of everything', () => {
  it('refused connection', async () => {
    const port = await closedPort();
    const seen = await expectFailedClean(
      `http://user:pa55@127.0.0.1:${port}/health?token=s3cr3t`,
      new RegExp(
        `^http://127\\.0\\.0\\.1:${port}/health did not answer: connection refused \\(ECONNREFUSED\\)$`,
      ),
    );
    expect(seen.overview).toContain(`"url":"http://127.0.0.1:${port}/health"`);
  });

  it('timeout', async () => {
    const port = await server(() => undefined);
    await expectFailedClean(
      `http://user:pa55@127.0.0.1:${port}/health?token=s3cr3t`,
      /\/health did not answer: no answer within 300 ms$/,
      300,
    );
  });

  it('an answer too large', async () => {
    const port = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(Buffer.alloc(5 * 1024 * 1024, 'x'));
    });
    await expectFailedClean(
      `http://user:pa55@127.0.0.1:${port}/health?token=s3cr3t`,
      /\/health did not answer: answer larger than \d+ bytes$/,
    );
  });

  it('TLS failure (https: to a plain http server)', async () => {
    const port = await server((_req, res) => res.end('plain'));
    await expectFailedClean(
      `https://user:pa55@127.0.0.1:${port}/health?token=s3cr3t`,
      /^https:\/\/127\.0\.0\.1:\d+\/health did not answer: TLS handshake failed \([A-Z_]+\)$/,
    );
  });

  it('DNS failure (a name under .invalid)', async () => {
    await expectFailedClean(
      'https://user:pa55@health.invalid/health?token=s3cr3t',
      /^https:\/\/health\.invalid\/health did not answer: (host name not resolved|no answer within)/,
    );
  });
});

describe("a health check's URL credentials", () => {
  it('are sent as HTTP Basic, percent-decoded, with the query', async () => {
    const seen: Array<{ url: string | undefined; headers: IncomingHttpHeaders }> = [];
    const port = await server((req, res) => {
      seen.push({ url: req.url, headers: req.headers });
      const ok = req.headers.authorization === `Basic ${btoa('ops:pa@55')}`;
      res.writeHead(ok ? 200 : 401).end();
    });
    const result = await oneCheck(`http://ops:pa%4055@127.0.0.1:${port}/health?token=s3cr3t`);
    expect(seen).toMatchObject([{ url: '/health?token=s3cr3t' }]);
    // Healthy at once: nothing recorded, the overview says so.
    expect(result.entries).toEqual([]);
    expect(result.overview).toMatch(/"healthy":true/);
    expectNoSecret(result.overview, 'the overview');
  });

  it('are not needed: a check without them sends no authorization', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const port = await server((req, res) => (seen.push(req.headers), res.end()));
    await oneCheck(`http://127.0.0.1:${port}/health`);
    expect(seen[0]).not.toHaveProperty('authorization');
  });
});

describe('urlForDisplay', () => {
  it('keeps scheme, host, port and path, of a URL and of text that is not one', () => {
    expect(urlForDisplay('https://user:pa55@h.example:8443/a/b?token=s3cr3t#frag')).toBe(
      'https://h.example:8443/a/b',
    );
    expect(urlForDisplay('https://api.github.com')).toBe('https://api.github.com');
    // Not URLs (a port out of range, a broken host): cut by hand, the same way.
    expect(urlForDisplay('https://user:pa55@h.example:99999/x?token=s3cr3t')).toBe(
      'https://h.example:99999/x',
    );
    expect(urlForDisplay('https://us@er:p@55@[bad/x#token=s3cr3t')).toBe('https://[bad/x');
    expect(urlForDisplay('no url\u001b[2J')).toBe('no url?[2J');
  });
});

describe('every URL flag, refused, echoes no secret', () => {
  const tokenFile = join(dir, 'token');
  const notifySecret = join(dir, 'notify-secret');
  writeFileSync(tokenFile, 'ghp_0123456789abcdef\n');
  writeFileSync(notifySecret, `${SECRET}\n`);
  const policy = writePolicy(dir, [
    { name: 'a', resources: ['lock:*'], claims: { repository_owner: 'a' } },
  ]);
  const cases: Array<[string[], RegExp]> = [
    [
      ['--health-check', `${R}=http://user:pa55@status.example/health?token=s3cr3t`],
      /^Invalid --health-check 'lock:deploy\/production=http:\/\/status\.example\/health'/,
    ],
    [
      ['--notify', 'https://user:pa55@hooks.example:99999/x?token=s3cr3t'],
      /^Invalid --notify 'https:\/\/hooks\.example:99999\/x': expected an https: URL/,
    ],
    [
      ['--notify', 'https://user:pa55@hooks.example/x?token=s3cr3t'],
      /^Invalid --notify 'https:\/\/hooks\.example': expected an https: URL without credentials/,
    ],
    [
      ['--oidc-audience', 'lease-gate', '--policy', policy],
      /^Invalid --oidc-issuer: the OIDC issuer 'https:\/\/issuer\.example\/o' must be an https:\/\/ URL without credentials or query/,
    ],
    [
      ['--promote', 'staging->production', '--github-token-file', tokenFile],
      /^Invalid --github-api-url 'https:\/\/api\.example\/v3'\. Expected an https:\/\/ URL/,
    ],
  ];
  const extra = [
    ['--notify-secret-file', notifySecret],
    ['--notify-secret-file', notifySecret],
    ['--notify-secret-file', notifySecret],
    ['--oidc-issuer', 'https://user:pa55@issuer.example/o?token=s3cr3t'],
    ['--github-api-url', 'https://user:pa55@api.example/v3?token=s3cr3t'],
  ];

  it('lease-gate kernel: --health-check, --notify, --oidc-issuer, --github-api-url', async () => {
    for (const [i, [args, message]] of cases.entries()) {
      const r = await runCli(['kernel', '--port', '0', ...args, ...extra[i]!], {});
      expect(r, args.join(' ')).toMatchObject({ code: 2, stderr: expect.stringMatching(message) });
      expectNoSecret(r.stderr + r.stdout, args.join(' '));
    }
  });

  it('lease-gate app: githubApiUrl, githubServerUrl and plane.url in its config', async () => {
    const bad = 'https://user:pa55@api.example/v3?token=s3cr3t';
    for (const field of ['githubApiUrl', 'githubServerUrl', 'plane.url']) {
      const config = {
        appId: 1,
        privateKeyFile: 'key.pem',
        webhookSecretFile: 'secret',
        plane: { url: field === 'plane.url' ? bad : 'https://plane.example' },
        rules: [{ repository: 'a/b', environment: 'production', resource: R }],
        ...(field === 'plane.url' ? {} : { [field]: bad }),
      };
      const file = join(dir, `app-${field}.json`);
      writeFileSync(file, JSON.stringify(config));
      const r = await runCli(['app', '--config', file], {});
      expect(r.code, field).not.toBe(0);
      expect(r.stderr).toContain(`field '${field}'`);
      expectNoSecret(r.stderr + r.stdout, field);
    }
  });

  it('lease-gate kernel: a failing check on the committed CLI says nothing of its secret', async () => {
    const port = await closedPort();
    const kernel = await startKernelProcess([
      '--health-check',
      `${R}=http://user:pa55@127.0.0.1:${port}/health?token=s3cr3t`,
    ]);
    cleanups.push(() => kernel.stop());
    let overview = '';
    for (let i = 0; i < 200 && !/"healthy":false/.test(overview); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      overview = await (await fetch(`${kernel.url}/api/v1/kernel/resources`)).text();
    }
    expect(overview).toMatch(/did not answer: connection refused/);
    const ledger = JSON.stringify(await fetchLedger(kernel.url));
    expect(ledger).toContain('connection refused');
    expectNoSecret(overview, 'the overview');
    expectNoSecret(ledger, 'the ledger');
    expectNoSecret(kernel.output(), 'stderr');
  });
});
