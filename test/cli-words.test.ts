import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/http/client.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { notificationText } from '../src/kernel/notify/notification.js';
import { HealthChecks, parseHealthCheck } from '../src/kernel/service/health-checks.js';
import { describeLoss } from '../src/lease/texts.js';
import { createPlaneClient } from '../src/plane/client.js';
import { runMain } from './support/cli-main.js';
import { A, B, R } from './support/names.js';
import { cleanupsAfterEach } from './support/cleanup.js';

/**
 * The words the CLI says (issue #55, item 9), against the real kernel over HTTP, in-process
 * (src/): the health gate's hold in its own words, `production=URL` as --promote takes it,
 * who revoked, `--wait-timeout 0` asking once, usage errors ending their sentence, and one
 * time format in `status`.
 */

const ADMIN = 'words-admin-key';

const cleanups = cleanupsAfterEach();

const cli = (args: string[], env: Record<string, string> = {}) =>
  runMain(args, { LEASE_GATE_ADMIN_KEY: ADMIN, ...env });
/** `lease-gate run` asking once (--wait-timeout 0) before its command (`true`). */
const runOnce = (url: string, did: string) =>
  cli(['run', '--api-url', url, '--actor-did', did, '--wait-timeout', '0', '--', 'true']);

async function kernel(onService?: Parameters<typeof startKernelServer>[0]['onService']) {
  const running: RunningKernel = await startKernelServer({
    adminKey: ADMIN,
    log: () => undefined,
    ...(onService ? { onService } : {}),
  });
  const client = createPlaneClient({ apiUrl: running.url });
  cleanups.push(async () => {
    await client.close();
    await running.close();
  });
  return { url: running.url, client };
}

/** A service's health endpoint on 127.0.0.1:0 answering 503. */
async function failingHealth(): Promise<string> {
  const server: Server = createServer((_req, res) => res.writeHead(503).end('down'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/health?token=s3cret`;
}

describe('the health gate, in its own words', () => {
  it('tells a waiter and status "held while its health check fails", never "frozen by an operator"', async () => {
    const health = await failingHealth();
    const check = parseHealthCheck(`production=${health}`);
    // An environment name is its deploy lock, as --promote takes it.
    expect(check.resource).toBe(R);
    let polled!: () => void;
    const firstPoll = new Promise<void>((resolve) => (polled = resolve));
    const http = createHttpClient();
    const checks = new HealthChecks({
      checks: [check],
      intervalMs: 60_000,
      freezeHeld: false,
      http,
      now: Date.now,
      // The first poll acts, then sleeps until close: the hold stands for the whole test.
      sleep: (_ms, signal) =>
        new Promise((resolve) => {
          polled();
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
      log: () => undefined,
    });
    cleanups.push(() => http.close());
    cleanups.push(() => checks.close());
    const { url } = await kernel((service) => checks.attach(service));
    await firstPoll;

    const origin = health.slice(0, health.indexOf('?'));
    const said = `held while its health check fails: ${origin} answered 503`;
    const waiter = await cli([
      'acquire',
      '--api-url',
      url,
      '--actor-did',
      A,
      '--wait-timeout',
      '0',
    ]);
    expect(waiter.code).toBe(1);
    expect(waiter.err).toContain(`${R} is ${said}; asked once (--wait-timeout 0)`);
    expect(waiter.err).not.toContain('by an operator');

    const run = await runOnce(url, A);
    expect(run.err).toContain(
      `${R} is ${said}; asked once (--wait-timeout 0). The command did not run.`,
    );
    expect(run.err).not.toContain('by an operator');

    const status = await cli(['status', '--api-url', url]);
    expect(status.out).toBe(`${R} is ${said}; nobody new is granted it`);
    for (const text of [waiter.err, run.err, status.out]) expect(text).not.toContain('s3cret');

    expect(
      notificationText({
        kind: 'freeze',
        resource: R,
        agent: 'health-check',
        atMs: 0,
        reason: `${origin} answered 503`,
      }),
    ).toBe(`${R} ${said}`);
  });
});

describe('a revoked holder', () => {
  it('is told who revoked it (lease-gate revoke --by alice), on asking again and by the watch', async () => {
    const { url, client } = await kernel();
    const granted = await client.lease({ resource: R, actorDid: A });
    if (granted.kind !== 'granted') throw new Error(granted.kind);
    const revoke = await cli([
      'revoke',
      '--api-url',
      url,
      '--by',
      'alice',
      '--reason',
      'incident 42',
    ]);
    expect(revoke.code).toBe(0);

    const again = await cli(['acquire', '--api-url', url, '--actor-did', A, '--wait-timeout', '0']);
    expect(again.err).toContain(`${R} was revoked for this agent by operator:alice: incident 42`);

    const watched = await client.watch({ resource: R, actorDid: A, leaseId: granted.lease.id });
    expect(watched).toMatchObject({ kind: 'ended', reason: 'revoked', by: 'operator:alice' });
    if (watched.kind !== 'ended') throw new Error(watched.kind);
    const { message, by } = watched;
    const loss = describeLoss(R, {
      reason: 'revoked',
      atMs: Date.now(),
      ...(message ? { message } : {}),
      ...(by ? { by } : {}),
    });
    expect(loss).toContain('the lease was revoked by operator:alice: incident 42.');
  });
});

describe('--wait-timeout 0 on a held lease', () => {
  it('says it asked once, not that it timed out', async () => {
    const { url, client } = await kernel();
    expect((await client.lease({ resource: R, actorDid: A })).kind).toBe('granted');
    const got = await cli(['acquire', '--api-url', url, '--actor-did', B, '--wait-timeout', '0']);
    expect(got.code).toBe(1);
    expect(got.err).toContain(`${R} is held by ${A}; asked once (--wait-timeout 0)`);
    expect(got.err).not.toMatch(/timed out/);
    const run = await runOnce(url, B);
    expect(run.err).toContain(
      `lease-gate: ${R} is held by ${A}; asked once (--wait-timeout 0). The command did not run.`,
    );
    expect(run.err).not.toMatch(/timed out/);
  });
});

describe('a usage error', () => {
  it('ends its sentence before "See …"', async () => {
    const bad = [
      ['acquire', '--wait-timeout'],
      ['status', '--json=3'],
      ['freeze', '--api-url', 'http://127.0.0.1:1'],
      ['break-glass', '--api-url', 'http://127.0.0.1:1'],
      ['run', '--zzz'],
      ['status', '--bogus'],
      ['kernel', '--health-check', 'x'],
    ];
    for (const args of bad) {
      const got = await cli(args);
      expect(got.code, args.join(' ')).toBe(2);
      expect(got.err, args.join(' ')).toMatch(/[.?!]['")]* See 'lease-gate [\w-]+ --help'\.$/);
      expect(got.err, args.join(' ')).not.toMatch(/\.\. See/);
    }
  });
});

describe('lease-gate status', () => {
  it('writes every time in one format', async () => {
    const { url, client } = await kernel();
    expect((await client.lease({ resource: R, actorDid: A })).kind).toBe('granted');
    const untilMs = Math.floor(Date.now() / 1000) * 1000 + 3 * 3_600_000;
    const until = new Date(untilMs).toISOString().slice(0, 19).replace('T', ' ');
    await client.freeze({ resource: R, reason: 'release freeze', untilMs }, ADMIN);
    const got = await cli(['status', '--api-url', url]);
    const lines = got.out.split('\n');
    expect(lines[0]).toBe(
      `${R} is frozen by operator:admin-key until ${until} UTC: release freeze; nobody new is granted it`,
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^${R} is held by ${A}: lease \\S+, fence \\d+, expires \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC$`,
      ),
    );
    // No ISO stamp and no epoch milliseconds beside it.
    expect(got.out).not.toMatch(/\d{4}-\d\d-\d\dT|\(\d{10,}\)/);
  });
});
