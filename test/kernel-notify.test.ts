import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/core.js';
import { Notifier, checkNotifyUrl, signBody } from '../src/kernel/notify.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/server.js';
import { memoryStore } from '../src/kernel/store.js';
import { createPlaneClient } from '../src/plane/client.js';

/** Signed notifications from a real kernel to a real receiver on loopback. */

const SECRET = 'a-notify-secret-of-some-length';
const A = 'did:web:acme.example:agent:a';
const B = 'did:web:acme.example:agent:b';
const R = 'lock:deploy/production';
const ADMIN = 'notify-admin';

interface Received {
  body: string;
  headers: IncomingMessage['headers'];
}

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** Answers 500 to the first `failFirst` requests, then 204; records what it was sent. */
async function receiver(failFirst: number) {
  const received: Received[] = [];
  let seen = 0;
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen += 1;
      if (seen <= failFirst) {
        res.writeHead(500).end();
        return;
      }
      received.push({ body, headers: req.headers });
      res.writeHead(204).end();
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const until = async (count: number) => {
    // Bounded: each round is woken by a delivery; 200 rounds is far more than any test needs.
    for (let i = 0; received.length < count && i < 200; i += 1) {
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return received;
  };
  return { url, received, until, seen: () => seen };
}

async function kernelWith(notifier: Notifier): Promise<RunningKernel> {
  const running = await startKernelServer({
    table: new ResourceTable(),
    store: memoryStore(),
    adminKey: ADMIN,
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
    const got = await hook.until(6);
    expect(hook.seen()).toBe(8);
    const bodies = got.map((r) => JSON.parse(r.body) as Record<string, unknown>);
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
      expect(r.headers['x-lease-gate-delivery']).toBe(JSON.parse(r.body).id);
    }
    expect(new Set(got.map((r) => r.headers['x-lease-gate-delivery'])).size).toBe(6);
    const ready = (await (await fetch(`${url}/readyz`)).json()) as Record<string, unknown>;
    expect(ready).toMatchObject({ ok: true, notifications: { delivered: 6, failed: 0 } });
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

  it('signs as GitHub does and sends nothing in clear beyond loopback', async () => {
    expect(signBody("It's a Secret to Everybody", 'Hello, World!')).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
    expect(() => checkNotifyUrl('http://hooks.example.com/x')).toThrow(/https/);
    expect(checkNotifyUrl('https://hooks.example.com/x')).toBe('https://hooks.example.com/x');
  });
});
