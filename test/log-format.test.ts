import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, maskSecrets } from '../src/log/logger.js';
import { startFakeIssuer, type FakeIssuer } from './support/fake-oidc.js';
import { startFakeGitHub } from './support/fake-github-app.js';
import { writeAppConfig } from './support/app-harness.js';
import { post } from './support/http.js';
import { DIST_CLI, runCli } from './support/kernel-process.js';
import { cleanupsAfterEach } from './support/cleanup.js';
import { writePolicy } from './support/policy.js';

/**
 * `--log-format json` (#57 item 4): the kernel's every line, on stdout and stderr, is one JSON
 * object with level, time and msg (and its fields: resource, did, requestId, replica), and no
 * key, token or URL secret reaches it on the failure paths: a bad bearer key, bad OIDC tokens,
 * a notification receiver that refuses (its URL's path and query are its credential), a
 * notification URL with a password, a PostgreSQL that is not there.
 */

const KEY = 'kernel-key-0123456789-abcdef';
const ADMIN = 'admin-key-0123456789-abcdef';
const WRONG = 'wrong-key-0123456789-abcdef';
const NOTIFY_SECRET = 'notify-secret-0123456789';
const PATH_SECRET = 'PATHSECRETxyz123';
const QUERY_SECRET = 'QUERYSECRETxyz123';
const URL_PASSWORD = 'URLPASSWORDxyz123';
const PG_PASSWORD = 'PGPASSWORDxyz123';
const SECRETS = [KEY, ADMIN, WRONG, NOTIFY_SECRET, PATH_SECRET, QUERY_SECRET, URL_PASSWORD];

const cleanups = cleanupsAfterEach();
const dir = mkdtempSync(join(tmpdir(), 'lease-gate-log-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const secretFile = join(dir, 'notify.secret');
writeFileSync(secretFile, NOTIFY_SECRET);

interface Line {
  level: string;
  time: string;
  msg: string;
  [field: string]: unknown;
}

/** Every line of a stream, each parsed as JSON with level, time (ISO) and msg, or the test fails. */
function jsonLines(text: string, stream: string): Line[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      let parsed: Line;
      try {
        parsed = JSON.parse(line) as Line;
      } catch {
        throw new Error(`${stream} line is not JSON: ${line}`);
      }
      expect(['info', 'warn', 'error'], line).toContain(parsed.level);
      expect(new Date(parsed.time).toISOString(), line).toBe(parsed.time);
      expect(typeof parsed.msg, line).toBe('string');
      return parsed;
    });
}

function expectNoSecret(text: string, secrets = SECRETS): void {
  for (const secret of secrets) expect(text, `the output holds ${secret}`).not.toContain(secret);
}

interface JsonKernel {
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** The built CLI's kernel with --log-format json, started once its listening line (JSON) names its URL. */
function startJsonKernel(args: string[], env: Record<string, string>): Promise<JsonKernel> {
  const child = spawn(
    process.execPath,
    [...DIST_CLI, 'kernel', '--port', '0', '--log-format', 'json', ...args],
    {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  cleanups.push(() => (child.exitCode === null ? (child.kill('SIGKILL'), exited) : undefined));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /"url":"(http:\/\/[^"]+)"/.exec(stdout)?.[1];
      if (url)
        resolve({
          url,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: () => (child.kill('SIGTERM'), exited),
        });
    });
    void exited.then((code) => reject(new Error(`kernel exited with ${code}: ${stdout}${stderr}`)));
  });
}

/** The built CLI's kernel run to its end (a refused start): exit code, stdout, stderr. */
const runJsonKernel = (args: string[], env: Record<string, string> = {}) =>
  runCli(['kernel', '--port', '0', '--log-format', 'json', ...args], env);

/** A loopback server answering every request 400 (a receiver that refuses), closed after the test. */
async function refusingReceiver(): Promise<{ port: number; hits: () => number }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits += 1;
    req.resume();
    res.writeHead(400).end('no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  );
  return { port: (server.address() as AddressInfo).port, hits: () => hits };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until(check: () => boolean, what: string, limitMs = 20_000): Promise<void> {
  for (const end = Date.now() + limitMs; !check();) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the logger', () => {
  const lines: string[] = [];
  const at = Date.UTC(2026, 11, 7, 12, 0, 0);
  const json = createLogger({
    format: 'json',
    write: (line) => lines.push(line),
    now: () => at,
    secrets: [KEY, 'short'],
    base: { replica: 'host-a:1' },
  });

  it('writes one JSON object a line: level, time, msg, the base fields, then its own', () => {
    lines.length = 0;
    json.warn('kernel: refused POST /x: 401 unauthorized', {
      requestId: 'r-1',
      resource: undefined,
    });
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      {
        level: 'warn',
        time: '2026-12-07T12:00:00.000Z',
        msg: 'kernel: refused POST /x: 401 unauthorized',
        replica: 'host-a:1',
        requestId: 'r-1',
      },
    ]);
  });

  it('masks the given secrets, URL passwords, long URL users and credential-named query values', () => {
    lines.length = 0;
    json.error(`bad ${KEY} at https://u:${URL_PASSWORD}@h.example/p?token=${QUERY_SECRET}&x=1`, {
      url: `https://ghp_0123456789abcdefghij@github.com/o/r`,
    });
    const line = JSON.parse(lines[0]!) as Line;
    expect(line.msg).toBe('bad *** at https://u:***@h.example/p?token=***&x=1');
    expect(line.url).toBe('https://***@github.com/o/r');
    // Under 8 characters a "secret" would mask ordinary words: never taken.
    lines.length = 0;
    json.info('a short word');
    expect((JSON.parse(lines[0]!) as Line).msg).toBe('a short word');
    expect(maskSecrets('postgres://gate@db/x and postgres://gate:***@db/x')).toBe(
      'postgres://gate@db/x and postgres://gate:***@db/x',
    );
  });

  it('escapes line breaks and terminal controls in the message and the fields', () => {
    lines.length = 0;
    json.info('a\nb\u001b[31m', { resource: 'r\r\u009b' });
    const line = JSON.parse(lines[0]!) as Line;
    expect(line.msg).toBe('a%0Ab\\u001b[31m');
    expect(line.resource).toBe('r%0D\\u009b');
    // eslint-disable-next-line no-control-regex -- the controls are what must not be there
    expect(lines[0]).not.toMatch(/[\n\r\u001b\u009b]/);
  });

  it('writes text as it always was, with no fields, masked and escaped too', () => {
    const text: string[] = [];
    const logger = createLogger({
      format: 'text',
      write: (l) => text.push(l),
      now: () => at,
      secrets: [KEY],
    });
    logger.info('lease-gate kernel listening on http://127.0.0.1:8787', { url: 'x' });
    logger.error(`kernel: key ${KEY}\nnext`);
    expect(text).toEqual([
      'lease-gate kernel listening on http://127.0.0.1:8787',
      'kernel: key ***%0Anext',
    ]);
  });
});

describe('lease-gate kernel --log-format json', () => {
  it('logs a grant, a refused key and a refused notification as JSON, with no key or URL secret', async () => {
    const receiver = await refusingReceiver();
    const hook = `http://127.0.0.1:${receiver.port}/hooks/T0/${PATH_SECRET}?token=${QUERY_SECRET}`;
    const kernel = await startJsonKernel(['--notify', hook, '--notify-secret-file', secretFile], {
      LEASE_GATE_KERNEL_KEY: KEY,
      LEASE_GATE_ADMIN_KEY: ADMIN,
    });
    const lease = { resource: 'lock:prod', actorDid: 'did:web:ci.example:job-1' };
    const refused = await post(kernel.url, '/api/v1/acp/coordination/lease', lease, {
      bearer: WRONG,
      headers: { 'x-request-id': 'req-wrong-key' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers['x-request-id']).toBe('req-wrong-key');
    const granted = await post(kernel.url, '/api/v1/acp/coordination/lease', lease, {
      bearer: KEY,
    });
    expect(granted.body).toMatchObject({ ok: true });
    // The grant is notified; the receiver answers 400, so the kernel gives it up and says so.
    await until(() => kernel.stderr().includes('gave up'), 'the notification given up');
    expect(await kernel.stop()).toBe(0);

    const out = jsonLines(kernel.stdout(), 'stdout');
    const err = jsonLines(kernel.stderr(), 'stderr');
    expect(out[0]).toMatchObject({ level: 'info', url: kernel.url });
    expect(out).toContainEqual(
      expect.objectContaining({ event: 'grant', resource: 'lock:prod', did: lease.actorDid }),
    );
    expect(err).toContainEqual(
      expect.objectContaining({
        level: 'error',
        requestId: 'req-wrong-key',
        msg: expect.stringContaining('401') as unknown,
      }),
    );
    expect(err).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: expect.stringMatching(/gave up a grant notification on lock:prod/) as unknown,
      }),
    );
    expect(receiver.hits()).toBeGreaterThan(0);
    expectNoSecret(kernel.stdout() + kernel.stderr());
  });

  it('logs refused OIDC tokens (another key, expired, another audience) without any of them', async () => {
    const issuer: FakeIssuer = await startFakeIssuer();
    cleanups.push(() => issuer.close());
    const policy = writePolicy(dir, [
      { name: 'main', resources: ['lock:*'], claims: { ref: 'refs/heads/main' } },
    ]);
    const kernel = await startJsonKernel(
      [
        '--oidc-issuer',
        issuer.url,
        '--oidc-audience',
        'lease-gate',
        '--oidc-did-host',
        'github.com',
        '--policy',
        policy,
      ],
      {},
    );
    const stranger = await issuer.stranger();
    const tokens = [
      await issuer.sign({ audience: 'lease-gate', key: stranger }),
      await issuer.sign({ audience: 'lease-gate', expiresInS: -600 }),
      await issuer.sign({ audience: 'someone-else' }),
    ];
    for (const token of tokens) {
      const answer = await post(
        kernel.url,
        '/api/v1/acp/coordination/lease',
        { resource: 'lock:prod', actorDid: 'did:web:x' },
        { bearer: token },
      );
      expect(answer.status).toBe(401);
    }
    await until(
      () => kernel.stderr().split('refused').length > tokens.length,
      'three refusals logged',
    );
    expect(await kernel.stop()).toBe(0);
    const err = jsonLines(kernel.stderr(), 'stderr');
    jsonLines(kernel.stdout(), 'stdout');
    expect(
      err.filter((l) => /refused POST/.test(l.msg) && typeof l.requestId === 'string'),
    ).toHaveLength(3);
    // Neither a whole token nor any of its three parts (the signature least of all).
    expectNoSecret(
      kernel.stdout() + kernel.stderr(),
      tokens.flatMap((t) => [t, ...t.split('.')]),
    );
  });

  it('masks the metrics key as it does the other keys (here echoed as a request id)', async () => {
    const METRICS = 'metrics-key-0123456789-abcdef';
    const kernel = await startJsonKernel([], { LEASE_GATE_METRICS_KEY: METRICS });
    const refused = await fetch(`${kernel.url}/metrics`, { headers: { 'x-request-id': METRICS } });
    expect(refused.status).toBe(401);
    await until(() => kernel.stderr().includes('refused GET /metrics'), 'the refusal logged');
    expect(await kernel.stop()).toBe(0);
    jsonLines(kernel.stderr(), 'stderr');
    expectNoSecret(kernel.stdout() + kernel.stderr(), [METRICS]);
  });

  it('refuses a notification URL with a password, and an unreachable PostgreSQL, in one JSON line each', async () => {
    const withPassword = await runJsonKernel(
      [
        '--notify',
        `http://gate:${URL_PASSWORD}@127.0.0.1:1/hook`,
        '--notify-secret-file',
        secretFile,
      ],
      { LEASE_GATE_KERNEL_KEY: KEY },
    );
    expect(withPassword.code).toBe(2);
    expect(jsonLines(withPassword.stderr, 'stderr')).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: expect.stringMatching(/^Invalid --notify/) as unknown,
      }),
    ]);
    expectNoSecret(withPassword.stdout + withPassword.stderr);

    const port = await closedPort();
    const noDatabase = await runJsonKernel(
      ['--store', 'postgres', '--signing-key', join(dir, 'ledger.key')],
      {
        DATABASE_URL: `postgres://gate:${PG_PASSWORD}@127.0.0.1:${port}/test`,
        LEASE_GATE_KERNEL_KEY: KEY,
      },
    );
    expect(noDatabase.code).not.toBe(0);
    const lines = jsonLines(noDatabase.stderr, 'stderr');
    expect(lines.at(-1)).toMatchObject({
      level: 'error',
      replica: expect.stringMatching(/:\d+$/) as unknown,
    });
    expectNoSecret(noDatabase.stdout + noDatabase.stderr, [...SECRETS, PG_PASSWORD]);
  });
});

describe('lease-gate app --log-format json', () => {
  it('writes its lines as JSON, a bad signature refused, and none of its secrets', async () => {
    const github = await startFakeGitHub();
    cleanups.push(() => github.close());
    const kernel = await startJsonKernel([], { LEASE_GATE_KERNEL_KEY: KEY });
    const config = writeAppConfig(
      github,
      { url: kernel.url, key: KEY },
      {
        listen: { host: '127.0.0.1', port: 0 },
        rules: [{ repository: 'acme/*', environment: 'production', resource: 'lock:prod' }],
      },
    );
    const child = spawn(process.execPath, [...DIST_CLI, 'app', '--config', config], {
      env: { PATH: process.env.PATH ?? '', LEASE_GATE_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    cleanups.push(() => (child.exitCode === null ? (child.kill('SIGKILL'), exited) : undefined));
    await until(() => /"url":"http:\/\/[^"]+"/.test(stdout), 'the app listening');
    const url = /"url":"(http:\/\/[^"]+)"/.exec(stdout)![1]!;
    const refused = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'deployment_protection_rule',
        'x-github-delivery': 'd-1',
        'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
      },
      body: JSON.stringify({ action: 'requested' }),
    });
    expect(refused.status).toBe(401);
    await until(() => stdout.includes('bad signature'), 'the refusal logged');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = jsonLines(stdout, 'stdout');
    jsonLines(stderr, 'stderr');
    expect(lines[0]).toMatchObject({ level: 'info', url });
    expect(lines.map((l) => l.msg)).toContainEqual(
      expect.stringMatching(/^delivery d-1: refused, bad signature$/),
    );
    // The time is a field, not the start of the message.
    expect(lines.filter((l) => /^\d{4}-/.test(l.msg))).toEqual([]);
    const secrets = [
      KEY,
      github.secret,
      ...github.privateKeyPem.split('\n').filter((l) => l.length > 40),
    ];
    expectNoSecret(stdout + stderr, secrets);

    // A config that does not check out: refused before anything listens, in one JSON line.
    const bad = writeAppConfig(github, { url: kernel.url, key: KEY }, { rules: [] });
    const refusedStart = await runCli(['app', '--config', bad, '--log-format', 'json']);
    expect(refusedStart.code).toBe(2);
    expect(jsonLines(refusedStart.stderr, 'stderr')).toEqual([
      expect.objectContaining({
        level: 'error',
        refused: 'usage',
        msg: expect.stringContaining("field 'rules'") as unknown,
      }),
    ]);
  });
});
