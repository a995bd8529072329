import { spawnSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/http/client.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import {
  HealthChecks,
  parseHealthCheck,
  type HealthCheckStatus,
} from '../src/kernel/service/health-checks.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { Ledger } from '../src/ledger/ledger.js';
import { createPlaneClient } from '../src/plane/client.js';
import { DIST_CLI, startKernelProcess } from './support/kernel-process.js';
import { A, B, R } from './support/names.js';
import { cleanupsAfterEach } from './support/cleanup.js';

/** The health gate (issue #39): grants held while a check fails, on the ledger as freezes. */

const ADMIN = 'health-admin-key';

const cleanups = cleanupsAfterEach();

/** A service's health endpoint on 127.0.0.1:0 answering `status.code`, counting its polls. */
async function healthServer() {
  const state = { code: 200, polls: 0 };
  const server: Server = createServer((_req, res) => {
    state.polls += 1;
    res.writeHead(state.code, { 'content-type': 'text/plain' }).end('x'.repeat(100));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  );
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health?token=s3cret`,
  };
}

/**
 * An injected sleep the test steps: each poll's wait is recorded and resolved only by
 * `step()`, which then waits for the next poll to have acted and gone to sleep again.
 */
function steppedSleep() {
  const waits: number[] = [];
  let wake: (() => void) | undefined;
  let slept: (() => void) | undefined;
  let asleep = new Promise<void>((resolve) => (slept = resolve));
  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      waits.push(ms);
      wake = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
      slept?.();
    });
  return {
    sleep,
    waits,
    /** Until the first poll is done. */
    started: () => asleep,
    async step() {
      asleep = new Promise<void>((resolve) => (slept = resolve));
      wake?.();
      await asleep;
    },
  };
}

async function kernelWithChecks(url: string, freezeHeld: boolean) {
  const stepped = steppedSleep();
  const http = createHttpClient();
  const checks = new HealthChecks({
    checks: [parseHealthCheck(`${R}=${url}`)],
    intervalMs: 10_000,
    freezeHeld,
    http,
    now: Date.now,
    sleep: stepped.sleep,
    log: () => undefined,
  });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const kernel: RunningKernel = await startKernelServer({
    table: new ResourceTable({ ttlMs: 30_000 }),
    ledger: new Ledger(privateKey),
    adminKey: ADMIN,
    port: 0,
    onService: (service) => checks.attach(service),
    log: () => undefined,
  });
  const client = createPlaneClient({ apiUrl: kernel.url });
  cleanups.push(async () => {
    await checks.close();
    await client.close();
    await http.close();
    await kernel.close();
  });
  await stepped.started();
  return { kernel, client, stepped, publicKey };
}

async function overviewChecks(url: string): Promise<HealthCheckStatus[]> {
  const res = await fetch(`${url}/api/v1/kernel/resources`);
  return ((await res.json()) as { healthChecks: HealthCheckStatus[] }).healthChecks;
}

async function ledgerEntries(url: string) {
  const { bundle, publicKey } = (await fetchLedger(url)) as unknown as {
    bundle: { checkpoint: string; entries: Array<{ entry: LedgerEntry }> };
    publicKey: string;
  };
  return { bundle, publicKey, entries: bundle.entries.map((e) => e.entry) };
}

describe('the health gate', () => {
  it('holds grants while the check fails, tells waiters why, and lifts its own hold', async () => {
    const health = await healthServer();
    health.state.code = 503;
    const { kernel, client, stepped } = await kernelWithChecks(health.url, false);

    const refused = await client.lease({ resource: R, actorDid: A });
    expect(refused).toMatchObject({ kind: 'frozen', position: 0 });
    const message = refused.kind === 'frozen' ? refused.message : '';
    expect(message).toMatch(
      /^held while its health check fails: http:\/\/127\.0\.0\.1:\d+\/health answered 503$/,
    );
    // The check's token in its query string is nowhere: not in the answer, the overview or the ledger.
    const [status] = await overviewChecks(kernel.url);
    expect(status).toMatchObject({ resource: R, healthy: false });
    expect(JSON.stringify(status)).not.toContain('s3cret');

    // Still failing: no second freeze entry; the polls back off 1 s, 2 s, 4 s … up to the interval.
    for (let i = 0; i < 5; i += 1) await stepped.step();
    expect(stepped.waits).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);

    health.state.code = 200;
    await stepped.step();
    expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'granted' });
    expect(stepped.waits.at(-1)).toBe(10_000);

    const { entries, bundle, publicKey } = await ledgerEntries(kernel.url);
    expect(entries.map((e) => [e.kind, e.actorDid])).toEqual([
      ['freeze', 'health-check'],
      ['unfreeze', 'health-check'],
      ['grant', A],
    ]);
    expect(entries[1]!.reason).toMatch(/^the health check passed: .* answered 200$/);
    expect(JSON.stringify(entries)).not.toContain('s3cret');
    expect(verifyBundle(bundle, createPublicKey(publicKey))).toMatchObject({ count: 3 });
  });

  it("never lifts an operator's freeze, and an operator's unfreeze overrides a failing check", async () => {
    const health = await healthServer();
    const { client, stepped } = await kernelWithChecks(health.url, false);
    await client.freeze({ resource: R, reason: 'incident 7' }, ADMIN);
    health.state.code = 500;
    await stepped.step();
    // The operator's freeze stands, with its reason (the check's hold did not replace it).
    const refused = await client.lease({ resource: R, actorDid: A });
    expect(refused.kind === 'frozen' && refused.message).toMatch(/incident 7/);
    health.state.code = 200;
    await stepped.step();
    expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'frozen' });

    // Failing again, the check holds it once the operator has unfrozen; the operator may lift it.
    await client.unfreeze(R, ADMIN);
    health.state.code = 500;
    await stepped.step();
    expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'frozen' });
    expect(await client.unfreeze(R, ADMIN)).toEqual({ changed: true });
    await stepped.step();
    expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'granted' });
  });

  it('with freezeHeld, a check failing while held freezes until an operator unfreezes', async () => {
    const health = await healthServer();
    const { kernel, client, stepped, publicKey } = await kernelWithChecks(health.url, true);
    expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'granted' });
    health.state.code = 502;
    await stepped.step();
    // The holder is not cut off (a freeze never revokes); nobody new gets it.
    expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'granted' });
    await client.release({ resource: R, actorDid: A });
    health.state.code = 200;
    await stepped.step();
    const refused = await client.lease({ resource: R, actorDid: B });
    expect(refused.kind === 'frozen' && refused.message).toMatch(
      /^frozen after a failed health check until an operator unfreezes it: .* answered 502 while it was held$/,
    );
    expect(await client.unfreeze(R, ADMIN)).toEqual({ changed: true });
    expect(await client.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'granted' });
    const { entries, bundle } = await ledgerEntries(kernel.url);
    expect(entries.filter((e) => e.kind === 'freeze').map((e) => e.actorDid)).toEqual([
      'health-check:held',
    ]);
    expect(verifyBundle(bundle, publicKey)).toMatchObject({ count: entries.length });
  });

  it('counts a check that does not answer as failing', async () => {
    const health = await healthServer();
    const dead = health.url.replace(/:\d+\//, ':1/');
    const { client } = await kernelWithChecks(dead, false);
    const refused = await client.lease({ resource: R, actorDid: A });
    expect(refused.kind === 'frozen' && refused.message).toMatch(/did not answer/);
  });
});

describe('lease-gate kernel --health-check', () => {
  it('refuses a plain http check off loopback, a bad resource and a bad interval, in one line', () => {
    for (const [args, form] of [
      [['--health-check', 'lock:x=http://status.example/health'], /Expected RESOURCE=URL/],
      [['--health-check', 'no spaces=https://status.example/'], /Expected RESOURCE=URL/],
      [
        ['--health-check', `${R}=https://a.example/`, '--health-interval-ms', '5'],
        /--health-interval-ms '5'/,
      ],
      [['--health-freeze-held'], /needs a --health-check/],
    ] as const) {
      const run = spawnSync(process.execPath, [...DIST_CLI, 'kernel', '--port', '0', ...args], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(form);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('holds grants on the committed CLI while its check fails, and shows the check', async () => {
    const health = await healthServer();
    health.state.code = 503;
    const kernel = await startKernelProcess([
      '--health-check',
      `${R}=${health.url}`,
      '--health-interval-ms',
      '100',
    ]);
    cleanups.push(() => kernel.stop());
    const client = createPlaneClient({ apiUrl: kernel.url });
    cleanups.push(() => client.close());
    // Bounded waits for the polls of a real clock (the stepped tests above prove the order).
    const until = async (done: () => Promise<boolean>) => {
      for (let i = 0; i < 200 && !(await done()); i += 1)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await done()).toBe(true);
    };
    await until(async () => (await overviewChecks(kernel.url))[0]?.healthy === false);
    expect(await client.lease({ resource: R, actorDid: A })).toMatchObject({ kind: 'frozen' });
    health.state.code = 204;
    await until(async () => (await client.lease({ resource: R, actorDid: A })).kind === 'granted');
    expect(kernel.output()).toMatch(/health checks: 1, every 100 ms/);
    expect(kernel.output()).not.toContain('s3cret');
  });
});
