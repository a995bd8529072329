import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import { afterEach, describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Notifier, signBody } from '../src/kernel/notify/notify.js';
import { checkNotifyUrl, readNotifyFile } from '../src/kernel/notify/notify-config.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { memoryStore } from '../src/kernel/store/store.js';
import { createPlaneClient } from '../src/plane/client.js';
import { startReceiver } from './support/notify-receiver.js';
import { A, B, R } from './support/names.js';

/** Signed notifications from a real kernel to a real receiver on loopback. */

const SECRET = 'a-notify-secret-of-some-length';
const ADMIN = 'notify-admin';

let cleanups: Array<() => Promise<void>> = [];
const receiver = async (failFirst: number) => {
  const hook = await startReceiver(failFirst);
  cleanups.push(hook.close);
  return hook;
};
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function kernelWith(
  notifier: Notifier,
  ttlMs?: number,
  key?: string,
): Promise<RunningKernel> {
  const running = await startKernelServer({
    table: new ResourceTable(ttlMs ? { ttlMs, lockDelayMs: 0 } : {}),
    store: memoryStore(),
    adminKey: ADMIN,
    key,
    onService: (service) => notifier.attach(service),
    log: () => undefined,
  });
  cleanups.push(async () => {
    await running.close();
    await notifier.close(100);
  });
  return running;
}

const noWait = async () => undefined;

describe('notifications', () => {
  it('sends a break-glass as critical, in red, naming who let whom through and why', async () => {
    const hook = await receiver(0);
    const notifier = new Notifier({ urls: [hook.url], secret: SECRET, sleep: noWait });
    const { url } = await kernelWith(notifier);
    const client = createPlaneClient({ apiUrl: url });
    cleanups.push(() => client.close());
    await client.freeze({ resource: R, reason: 'release freeze' }, ADMIN);
    const { until } = await client.breakGlass(
      { resource: R, actorDid: B, reason: 'CVE hotfix', by: 'alice' },
      ADMIN,
    );
    await client.lease({ resource: R, actorDid: B });
    const bodies = await hook.notifications(3);
    expect(bodies.map((b) => b.kind)).toEqual(['freeze', 'break_glass', 'grant']);
    expect(bodies[1]).toMatchObject({
      agent: B,
      by: 'operator:alice',
      reason: 'CVE hotfix',
      until,
      severity: 'critical',
      color: '#cf222e',
      text: `🔴 BREAK-GLASS on ${R}: ${B} may be granted it once past any freeze until ${new Date(until).toISOString()}, opened by operator:alice: CVE hotfix`,
    });
    expect(bodies[0]).not.toHaveProperty('severity');
  });

  it('delivers every change signed, in order per resource, after the receiver failed twice', async () => {
    const hook = await receiver(2);
    const notifier = new Notifier({ urls: [hook.url], secret: SECRET, sleep: noWait });
    const { url } = await kernelWith(notifier);
    const client = createPlaneClient({ apiUrl: url });
    cleanups.push(() => client.close());
    await client.lease({ resource: R, actorDid: A });
    await client.lease({ resource: R, actorDid: A }); // a renewal: no notification
    await client.freeze({ resource: R, reason: 'incident 7' }, ADMIN);
    await client.unfreeze(R, ADMIN);
    await client.release({ resource: R, actorDid: A });
    await client.lease({ resource: R, actorDid: B });
    await client.revoke(R, 'stuck deploy', ADMIN);
    const bodies = await hook.notifications(6);
    const got = hook.received;
    expect(hook.seen()).toBe(2 + got.length);
    expect(bodies.map((b) => b.kind)).toEqual([
      'grant',
      'freeze',
      'unfreeze',
      'release',
      'grant',
      'revoke',
    ]);
    expect(bodies[5]).toMatchObject({
      resource: R,
      agent: B,
      reason: 'stuck deploy',
      text: `${R} revoked from ${B} by an operator: stuck deploy`,
    });
    expect(bodies[1]).toMatchObject({ agent: 'operator:admin-key', reason: 'incident 7' });
    for (const r of got) {
      const expected = createHmac('sha256', SECRET).update(r.body).digest('hex');
      expect(r.headers['x-hub-signature-256']).toBe(`sha256=${expected}`);
      expect(await verify(SECRET, r.body, String(r.headers['x-hub-signature-256']))).toBe(true);
      expect(
        await verify('another-secret-entirely', r.body, String(r.headers['x-hub-signature-256'])),
      ).toBe(false);
      expect(r.headers['x-lease-gate-delivery']).toBe(JSON.parse(r.body).id);
      expect(r.headers['x-lease-gate-event']).toBe(JSON.parse(r.body).kind);
    }
    expect(new Set(bodies.map((b) => b.id)).size).toBe(6);
    const ready = (await (await fetch(`${url}/readyz`)).json()) as Record<string, unknown>;
    expect(ready).toMatchObject({ ok: true, notifications: { delivered: 6, failed: 0 } });
  });

  it('names the operator who revoked, when the operator gave a name', async () => {
    const hook = await receiver(0);
    const notifier = new Notifier({ urls: [hook.url], secret: SECRET, sleep: noWait });
    const { url } = await kernelWith(notifier);
    const client = createPlaneClient({ apiUrl: url });
    cleanups.push(() => client.close());
    await client.lease({ resource: R, actorDid: A });
    await client.revoke(R, 'stuck deploy', ADMIN, {}, 'alice');
    const bodies = await hook.notifications(2);
    expect(bodies[1]).toMatchObject({
      kind: 'revoke',
      agent: A,
      by: 'operator:alice',
      text: `${R} revoked from ${A} by operator:alice: stuck deploy`,
    });
  });

  it('tells a lapse: the holder that stopped renewing, its lease and fence, and when', async () => {
    const hook = await receiver(0);
    const notifier = new Notifier({ urls: [hook.url], secret: SECRET });
    // A short lease that nobody renews: the kernel's sweep lapses it.
    const { url } = await kernelWith(notifier, 200);
    const client = createPlaneClient({ apiUrl: url });
    cleanups.push(() => client.close());
    const before = Date.now();
    const granted = await client.lease({ resource: R, actorDid: A });
    if (granted.kind !== 'granted') throw new Error(`not granted: ${granted.kind}`);
    const bodies = await hook.notifications(2);
    expect(bodies.map((b) => b.kind)).toEqual(['grant', 'lapse']);
    expect(bodies[1]).toMatchObject({
      resource: R,
      agent: A,
      leaseId: granted.lease.id,
      fence: granted.lease.fence,
      text: `${R} lapsed: ${A} stopped renewing it`,
    });
    // Epoch milliseconds of the decision: the lapse comes a lease lifetime after the grant.
    const [grantAt, lapseAt] = bodies.map((b) => b.atMs as number);
    expect(grantAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(lapseAt! - grantAt!).toBeGreaterThanOrEqual(200);
    expect(lapseAt).toBeLessThanOrEqual(Date.now());
  });

  it('gives a delivery up after its retry time, and shows it in /readyz', async () => {
    const hook = await receiver(1_000);
    let now = 0;
    const notifier = new Notifier({
      urls: [hook.url],
      secret: SECRET,
      retryForMs: 2_000,
      now: () => now,
      sleep: async (ms) => void (now += ms),
    });
    const { url } = await kernelWith(notifier);
    const client = createPlaneClient({ apiUrl: url });
    cleanups.push(() => client.close());
    await client.lease({ resource: R, actorDid: A });
    let ready: { notifications?: { failed: number; recentFailures: unknown[] } } = {};
    for (let i = 0; i < 100 && !ready.notifications?.failed; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ready = (await (await fetch(`${url}/readyz`)).json()) as typeof ready;
    }
    // 250 + 500 + 1000 ms of back-off fit in 2 s: four attempts, then given up.
    expect(hook.seen()).toBe(4);
    expect(ready.notifications).toMatchObject({
      failed: 1,
      recentFailures: [{ kind: 'grant', resource: R, error: 'HTTP 500' }],
    });
  });

  it('shows failed deliveries in /readyz of a keyed kernel only to its keys; others see ok', async () => {
    const hook = await receiver(1_000);
    let now = 0;
    const notifier = new Notifier({
      urls: [hook.url],
      secret: SECRET,
      retryForMs: 0,
      now: () => now,
      sleep: async (ms) => void (now += ms),
    });
    const KEY = 'the-kernel-key-of-some-length';
    const { url } = await kernelWith(notifier, undefined, KEY);
    const client = createPlaneClient({ apiUrl: url, key: KEY });
    cleanups.push(() => client.close());
    await client.lease({ resource: R, actorDid: A });
    const readyz = async (authorization?: string) => {
      const res = await fetch(`${url}/readyz`, {
        headers: authorization ? { authorization } : {},
      });
      return { status: res.status, text: await res.text() };
    };
    let keyed = await readyz(`Bearer ${KEY}`);
    const failed = (text: string) =>
      (JSON.parse(text) as { notifications?: { failed: number } }).notifications?.failed;
    for (let i = 0; i < 100 && !failed(keyed.text); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      keyed = await readyz(`Bearer ${KEY}`);
    }
    expect(keyed.status).toBe(200);
    expect(JSON.parse(keyed.text)).toMatchObject({
      ok: true,
      notifications: { failed: 1, recentFailures: [{ kind: 'grant', resource: R }] },
    });
    expect(JSON.parse((await readyz(`Bearer ${ADMIN}`)).text)).toMatchObject({
      notifications: { failed: 1 },
    });
    for (const stranger of [undefined, 'Bearer not-the-key', `Basic ${KEY}`]) {
      expect(await readyz(stranger)).toEqual({ status: 200, text: '{"ok":true}' });
    }
  });

  it("never shows a receiver URL's path, where chat webhooks keep their secret", async () => {
    // A port nobody listens on: every attempt fails with a network error that names the call.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const url = `http://127.0.0.1:${port}/services/T0001/B0001/webhook-secret-in-the-path`;
    const lines: string[] = [];
    const notifier = new Notifier({
      urls: [url],
      secret: SECRET,
      retryForMs: 0,
      log: (line) => lines.push(line),
    });
    cleanups.push(() => notifier.close(100));
    notifier.push({
      kind: 'grant',
      seq: 0,
      tsMs: 1,
      resource: R,
      actorDid: A,
      leaseId: 'l1',
      fence: 1,
    });
    for (let i = 0; i < 200 && notifier.health().failed === 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const [failure] = notifier.health().recentFailures;
    expect(failure).toMatchObject({ url: `http://127.0.0.1:${port}`, kind: 'grant' });
    expect(failure!.error).toContain(`http://127.0.0.1:${port}/…`);
    const shown = JSON.stringify([notifier.health(), lines]);
    expect(shown).toMatch(/gave up a grant notification/);
    expect(shown).not.toContain('webhook-secret-in-the-path');
    expect(shown).not.toContain('/services/');
  });

  it('sends what queued during a delivery as one batch, in order per resource', async () => {
    const hook = await receiver(1);
    let letGo = () => undefined as void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const notifier = new Notifier({ urls: [hook.url], secret: SECRET, sleep: () => held });
    const { url } = await kernelWith(notifier);
    const client = createPlaneClient({ apiUrl: url });
    cleanups.push(() => client.close());
    // The first grant's delivery fails and waits to be retried; 3 resources x 4 changes queue.
    await client.lease({ resource: R, actorDid: A });
    const others = ['lock:a', 'lock:b', 'lock:c'];
    await Promise.all(
      others.map(async (resource) => {
        await client.lease({ resource, actorDid: A });
        await client.release({ resource, actorDid: A });
        await client.lease({ resource, actorDid: B });
        await client.release({ resource, actorDid: B });
      }),
    );
    letGo();
    const bodies = await hook.notifications(13);
    // The retry is the same delivery as the first try; the twelve others come in one POST.
    expect(hook.seen()).toBe(3);
    expect(hook.received.map((r) => r.headers['x-lease-gate-event'])).toEqual(['grant', 'batch']);
    const batch = JSON.parse(hook.received[1]!.body) as { count: number; text: string };
    expect(batch.count).toBe(12);
    expect(batch.text.split('\n')).toHaveLength(12);
    for (const resource of others) {
      expect(
        bodies.filter((b) => b.resource === resource).map((b) => `${b.kind} ${b.agent}`),
      ).toEqual([`grant ${A}`, `release ${A}`, `grant ${B}`, `release ${B}`]);
    }
    const ready = (await (await fetch(`${url}/readyz`)).json()) as Record<string, unknown>;
    expect(ready).toMatchObject({ notifications: { delivered: 13, requests: 2, pending: 0 } });
  });

  it('drops new changes past its backlog bound, and counts them', async () => {
    const hook = await receiver(1);
    let letGo = () => undefined as void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const lines: string[] = [];
    const notifier = new Notifier({
      urls: [hook.url],
      secret: SECRET,
      sleep: () => held,
      log: (line) => lines.push(line),
    });
    cleanups.push(() => notifier.close(100));
    const event = (i: number) => ({
      kind: 'grant' as const,
      seq: i,
      tsMs: i,
      resource: `lock:r${i}`,
      actorDid: A,
      leaseId: `l${i}`,
      fence: i,
    });
    for (let i = 0; i < 10_007; i += 1) notifier.push(event(i));
    expect(notifier.health()).toMatchObject({ ok: false, pending: 10_000, dropped: 7 });
    expect(lines).toEqual([expect.stringMatching(/10000 behind; dropping new ones/)]);
    letGo();
    await hook.notifications(10_000);
    // The receiver has the last batch a moment before the notifier reads its answer.
    for (let i = 0; i < 100 && notifier.health().pending > 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(notifier.health()).toMatchObject({ delivered: 10_000, pending: 0, dropped: 7 });
    // A batch's text is a chat message: its first lines, then how many more.
    const batch = JSON.parse(hook.received[1]!.body) as {
      count: number;
      text: string;
      notifications: { fence: number }[];
    };
    const shown = batch.text.split('\n');
    const first = batch.notifications[0]!.fence;
    expect(shown).toHaveLength(20);
    expect(shown[0]).toBe(`lock:r${first} granted to ${A} (fence ${first})`);
    expect(shown[19]).toBe(`… and ${batch.count - 19} more changes`);
  });

  it('reads --notify-file, and names the field and the form when it is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'notify-file-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, body: unknown) => {
      writeFileSync(join(dir, name), typeof body === 'string' ? body : JSON.stringify(body));
      return join(dir, name);
    };
    const good = file('good.json', {
      notify: { urls: ['https://hooks.example.com/a', 'http://127.0.0.1:9/b'], secretFile: '/s' },
    });
    expect(readNotifyFile(good)).toEqual({
      urls: ['https://hooks.example.com/a', 'http://127.0.0.1:9/b'],
      secretFile: '/s',
    });
    expect(() => readNotifyFile(file('none.json', {}))).toThrow(/expected \{"notify"/);
    expect(() => readNotifyFile(file('empty.json', { notify: { urls: [] } }))).toThrow(
      /notify\.urls: expected 1 to 20 URLs/,
    );
    expect(() =>
      readNotifyFile(file('clear.json', { notify: { urls: ['http://hooks.example.com/x'] } })),
    ).toThrow(/https/);
    expect(() => readNotifyFile(file('bad.json', '{not json'))).toThrow(
      /Cannot read --notify-file/,
    );
  });

  it('signs as GitHub does and sends nothing in clear beyond loopback', async () => {
    expect(signBody("It's a Secret to Everybody", 'Hello, World!')).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
    expect(() => checkNotifyUrl('http://hooks.example.com/x')).toThrow(/https/);
    expect(checkNotifyUrl('https://hooks.example.com/x')).toBe('https://hooks.example.com/x');
  });
});
