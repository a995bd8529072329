import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernelApp } from '../src/kernel/http/app.js';
import { LeaseKernel, ResourceTable } from '../src/kernel/rules/core.js';
import { HeldRequests, type Timers } from '../src/kernel/service/held.js';
import type { PlaneService } from '../src/kernel/service/plane-service.js';
import { PostgresService } from '../src/kernel/postgres/backend.js';
import { FROZEN_WAIT_MS, WAITER_GRACE_MS } from '../src/kernel/rules/rules.js';
import { epochMonotonic, nodeAdapter } from '../src/kernel/http/server.js';
import { KernelService } from '../src/kernel/service/service.js';
import { memoryStore } from '../src/kernel/store/store.js';
import { FreezeWindows } from '../src/kernel/service/windows.js';
import { Ledger } from '../src/ledger/ledger.js';
import { signingKey } from './support/pg-kernel.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { LEASE } from './support/names.js';
import { pgReplicas } from './support/pg-replicas.js';

/**
 * Issue #35 item 11: waiters keep their place through a freeze. When it ends
 * (an operator's unfreeze, a timed freeze's end, a recurring window's end) the
 * first in line is granted: a held request is woken at once, and a free
 * resource is kept for the head of the queue, so a later waiter asking first
 * is refused (`reserved`, the head as holder).
 */

const FREEZE = '/api/v1/acp/coordination/freeze';
const UNFREEZE = '/api/v1/acp/coordination/unfreeze';
const ADMIN = 'unfreeze-order-admin';
const did = (name: string) => `did:web:acme.example:agent:${name}`;
const [X1, X2, X3] = ['x1', 'x2', 'x3'].map(did) as [string, string, string];

/** Timers that never fire: a held request asks again only when it is woken. */
const wakeOnly: Timers = { set: () => undefined, clear: () => undefined };

interface Served {
  url: string;
  /** Answers every held request at once (as a stopping kernel does). */
  answerHeld(): void;
  close(): Promise<void>;
}

/** The real app over `service` on 127.0.0.1:0, its held requests woken only by changes. */
async function serve(service: PlaneService & { close(): Promise<void> }): Promise<Served> {
  const app = createKernelApp({
    service,
    adminKey: ADMIN,
    held: new HeldRequests(service, { timers: wakeOnly }),
  });
  const handle = nodeAdapter(app, () => undefined);
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answerHeld: () => app.close(),
    close: async () => {
      app.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await service.close();
    },
  };
}

async function post(
  served: Served,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const res = await request(served.url + path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
    signal: AbortSignal.timeout(30_000),
  });
  return {
    status: res.statusCode,
    applied: res.headers['preference-applied'],
    body: (await res.body.json()) as Record<string, unknown>,
  };
}

/** Until the queue of `resource` is `expected`, as the kernel's overview says; bounded polling. */
async function queueIs(served: Served, resource: string, expected: string[]): Promise<void> {
  let queue: string[] = [];
  for (let i = 0; i < 500; i += 1) {
    const res = await request(`${served.url}/api/v1/kernel/resources`);
    const { resources } = (await res.body.json()) as {
      resources: Array<{ resource: string; queue: Array<{ actorDid: string }> }>;
    };
    queue = (resources.find((r) => r.resource === resource)?.queue ?? []).map((w) => w.actorDid);
    if (JSON.stringify(queue) === JSON.stringify(expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(queue).toEqual(expected);
}

/** The same two scenarios on each backend (the decide loops of both run the rules). */
function unfreezeKeepsOrder(open: () => Promise<PlaneService & { close(): Promise<void> }>) {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });
  const admin = { authorization: `Bearer ${ADMIN}` };

  it('grants the held head at once on unfreeze; a later waiter asking first is refused', async () => {
    served = await serve(await open());
    const resource = 'lock:deploy/held-through-freeze';
    expect((await post(served, FREEZE, { resource, reason: 'incident' }, admin)).status).toBe(200);
    // x1 and x2 hold their requests; x3 polls. All wait in this order.
    const first = post(served, LEASE, { resource, actorDid: X1 }, { prefer: 'wait=20' });
    await queueIs(served, resource, [X1]);
    const second = post(served, LEASE, { resource, actorDid: X2 }, { prefer: 'wait=20' });
    await queueIs(served, resource, [X1, X2]);
    const polled = await post(served, LEASE, { resource, actorDid: X3 });
    expect(polled.body).toMatchObject({ reason: 'frozen', position: 2 });
    await queueIs(served, resource, [X1, X2, X3]);

    expect((await post(served, UNFREEZE, { resource }, admin)).body).toMatchObject({
      changed: true,
    });
    // x3 asks the moment the freeze ends: the resource is x1's (granted or kept for it).
    const jumped = await post(served, LEASE, { resource, actorDid: X3 });
    expect(jumped.status).toBe(409);
    expect(jumped.body).toMatchObject({ reason: 'lease_held', holder: X1 });
    // Held through the freeze, and granted by the unfreeze's wake (its timers never fire).
    const granted = await first;
    expect(granted).toMatchObject({ status: 200, applied: 'wait=20' });
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: X1 } });
    // x2 is still held, second in line behind x1's lease.
    await queueIs(served, resource, [X2, X3]);
    served.answerHeld();
    expect((await second).body).toMatchObject({ reason: 'lease_held', holder: X1, position: 0 });
  });

  it('keeps a freed resource for the first poller in line after unfreeze', async () => {
    served = await serve(await open());
    const resource = 'lock:deploy/polled-through-freeze';
    await post(served, FREEZE, { resource, reason: 'incident' }, admin);
    for (const [i, actorDid] of [X1, X2, X3].entries()) {
      const refused = await post(served, LEASE, { resource, actorDid });
      expect(refused.body).toMatchObject({ reason: 'frozen', position: i });
    }
    await post(served, UNFREEZE, { resource }, admin);
    const third = await post(served, LEASE, { resource, actorDid: X3 });
    expect(third.body).toMatchObject({ reason: 'lease_held', holder: X1, reserved: true });
    expect(third.body).toMatchObject({ position: 2 });
    const second = await post(served, LEASE, { resource, actorDid: X2 });
    expect(second.body).toMatchObject({ reason: 'lease_held', holder: X1, reserved: true });
    expect(second.body).toMatchObject({ position: 1 });
    const head = await post(served, LEASE, { resource, actorDid: X1 });
    expect(head.body).toMatchObject({ ok: true, lease: { holder: X1 } });
  });
}

describe('unfreeze keeps the queue order (memory store)', () => {
  unfreezeKeepsOrder(async () => {
    const { service } = await KernelService.open({
      table: new ResourceTable({ ttlMs: 30_000 }),
      store: memoryStore(),
      ledger: new Ledger(),
      now: epochMonotonic(),
    });
    return service;
  });
});

describePostgres('unfreeze keeps the queue order (PostgreSQL store)', () => {
  const kit = pgReplicas();
  unfreezeKeepsOrder(() =>
    PostgresService.open({
      url: POSTGRES_URL,
      schema: kit.schema,
      ledger: new Ledger(signingKey),
      ttlMs: 30_000,
      log: () => undefined,
    }),
  );
});

describe('the end of a timed freeze or a window keeps the queue order (the rules)', () => {
  const R = 'lock:deploy/production';

  it('keeps the resource for the head when a timed freeze ends, until its place lapses', () => {
    const kernel = new LeaseKernel({ random: () => 0.5 });
    const t = 1_800_000_000_000;
    kernel.freeze(R, 'deploy window', t + 60_000, t);
    for (const [i, actorDid] of [X1, X2, X3].entries()) {
      expect(kernel.lease(R, actorDid, t + 54_000 + i * 100)).toMatchObject({
        reason: 'frozen',
        position: i,
      });
    }
    // Each was told to come back at the freeze's end; x3 comes first, a moment later.
    expect(kernel.lease(R, X3, t + 60_050)).toMatchObject({ holder: X1, reserved: true });
    expect(kernel.lease(R, X2, t + 60_100)).toMatchObject({ holder: X1, reserved: true });
    expect(kernel.lease(R, X1, t + 60_200)).toMatchObject({ ok: true, lease: { holder: X1 } });
  });

  it('keeps it for a head told the longest frozen wait, which a short reservation would miss', () => {
    const kernel = new LeaseKernel({ random: () => 0.5 });
    const t = 1_800_000_000_000;
    kernel.freeze(R, 'incident', null, t - 1_000);
    // Until an operator unfreezes it: told to ask again FROZEN_WAIT_MS on.
    expect(kernel.lease(R, X1, t)).toMatchObject({ stampede: { waitMs: FROZEN_WAIT_MS } });
    expect(kernel.lease(R, X2, t + 100)).toMatchObject({ reason: 'frozen', position: 1 });
    kernel.unfreeze(R, t + 200);
    // Past the usual 2.5 s reservation, before x1's told wait and its grace ran out.
    const late = t + FROZEN_WAIT_MS + WAITER_GRACE_MS / 2;
    expect(kernel.lease(R, X2, late)).toMatchObject({ holder: X1, reserved: true });
    expect(kernel.lease(R, X1, late + 10)).toMatchObject({ ok: true });
  });

  it('keeps the resource for the head when a recurring window ends', () => {
    const windows = FreezeWindows.parse(
      JSON.stringify({
        windows: [
          {
            name: 'standup',
            schedule: '30 9 * * *',
            duration: '30m',
            timeZone: 'UTC',
            resources: [R],
            reason: 'standup',
          },
        ],
      }),
    );
    const kernel = new LeaseKernel({ window: (r, now) => windows.activeFor(r, now) });
    const end = Date.UTC(2026, 11, 1, 10, 0);
    for (const [i, actorDid] of [X1, X2, X3].entries()) {
      expect(kernel.lease(R, actorDid, end - 4_000 + i * 100)).toMatchObject({
        reason: 'frozen',
        position: i,
      });
    }
    expect(kernel.lease(R, X3, end + 20)).toMatchObject({ holder: X1, reserved: true });
    expect(kernel.lease(R, X1, end + 300)).toMatchObject({ ok: true, lease: { holder: X1 } });
  });
});
