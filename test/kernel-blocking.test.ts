import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createKernelApp } from '../src/kernel/http/app.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import {
  HeldRequests,
  MAX_HELD_WAIT_S,
  preferredWait,
  type Timers,
} from '../src/kernel/service/held.js';
import { epochMonotonic, nodeAdapter, startKernelServer } from '../src/kernel/http/server.js';
import { KernelService } from '../src/kernel/service/service.js';
import { memoryStore } from '../src/kernel/store/store.js';
import { Ledger } from '../src/ledger/ledger.js';
import { LEASE, R, RELEASE } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

const did = (name: string) => `did:web:acme.example:agent:${name}`;
const [A, B, C, D, E] = ['a', 'b', 'c', 'd', 'e'].map(did) as [
  string,
  string,
  string,
  string,
  string,
];

interface Kernel {
  url: string;
  service: KernelService;
  close(): Promise<void>;
}
let running: Kernel | undefined;

closeAfterEach(() => [running]);

/**
 * A real kernel on 127.0.0.1:0. The next in line is told to ask again only
 * after 20 s by default, so a fast grant can only come from the wake.
 */
async function start(options: { maxHeld?: number; maxWaitS?: number; ttlMs?: number } = {}) {
  const table = new ResourceTable({ nextInLineWaitMs: 20_000, ttlMs: options.ttlMs ?? 30_000 });
  const { service } = await KernelService.open({
    table,
    store: memoryStore(),
    ledger: new Ledger(),
    now: epochMonotonic(),
  });
  const held = new HeldRequests(service, options);
  const app = createKernelApp({ service, held });
  const handle = nodeAdapter(app, () => undefined);
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  running = {
    url: `http://127.0.0.1:${port}`,
    service,
    close: async () => {
      app.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await service.close();
    },
  };
  return running;
}

async function ask(
  kernel: Kernel,
  path: string,
  actorDid: string,
  options: { prefer?: string; signal?: AbortSignal } = {},
) {
  const res = await request(kernel.url + path, {
    method: 'POST',
    body: JSON.stringify({ resource: R, actorDid }),
    headers: {
      'content-type': 'application/json',
      ...(options.prefer ? { prefer: options.prefer } : {}),
    },
    signal: options.signal ?? null,
  });
  const body = (await res.body.json()) as Record<string, unknown>;
  return {
    status: res.statusCode,
    body,
    applied: res.headers['preference-applied'],
    at: performance.now(),
  };
}

/** The queue as the service sees it; polled a bounded number of times. */
async function queueBecomes(kernel: Kernel, expected: string[]): Promise<void> {
  let queue: string[] = [];
  for (let i = 0; i < 500; i += 1) {
    const found = (await kernel.service.overview()).resources.find((r) => r.resource === R);
    queue = (found?.queue ?? []).map((w) => w.actorDid);
    if (JSON.stringify(queue) === JSON.stringify(expected)) return;
    await delay(10);
  }
  expect(queue).toEqual(expected);
}

describe('blocking acquire (Prefer: wait=N) over HTTP', () => {
  it('answers at once without the header, exactly as before', async () => {
    const kernel = await start();
    const granted = await ask(kernel, LEASE, A, { prefer: 'wait=3600' });
    expect(granted).toMatchObject({ status: 200, applied: `wait=${MAX_HELD_WAIT_S}` });
    const started = performance.now();
    const refused = await ask(kernel, LEASE, B);
    expect(refused.at - started).toBeLessThan(10_000); // not held the 25 s cap
    expect(refused).toMatchObject({ status: 409, applied: undefined });
    expect(refused.body).toMatchObject({ reason: 'lease_held', holder: A, stampede: {} });
  });

  it('grants a held request as soon as the lease is released, and echoes the wait', async () => {
    const kernel = await start();
    await ask(kernel, LEASE, A);
    const waiting = ask(kernel, LEASE, B, { prefer: 'wait=20' });
    await queueBecomes(kernel, [B]);
    const released = await ask(kernel, RELEASE, A);
    const granted = await waiting;
    expect(granted).toMatchObject({ status: 200, applied: 'wait=20' });
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: B } });
    // Told to ask again only after 20 s: only the release's wake can grant it this fast.
    expect(granted.at - released.at).toBeLessThan(10_000);
  });

  it('wakes a held request when the lease lapses and when it is revoked', async () => {
    const kernel = await start({ ttlMs: 1_500 });
    const first = await ask(kernel, LEASE, A);
    const lapsing = ask(kernel, LEASE, B, { prefer: 'wait=20' });
    const granted = await lapsing;
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: B } });
    // The lease ran 1.5 s; the grant follows the lapse, not B's next ask 20 s on.
    expect(granted.at - first.at).toBeLessThan(10_000);
    const waiting = ask(kernel, LEASE, C, { prefer: 'wait=20' });
    await queueBecomes(kernel, [C]);
    const revokedAt = performance.now();
    await kernel.service.revoke(R, 'frozen');
    const next = await waiting;
    expect(next.body).toMatchObject({ ok: true, lease: { holder: C } });
    expect(next.at - revokedAt).toBeLessThan(10_000);
  });

  it('serves held requests in arrival order; a polling newcomer does not jump them', async () => {
    const kernel = await start();
    await ask(kernel, LEASE, A);
    const waiting = new Map<string, ReturnType<typeof ask>>();
    for (const [i, agent] of [B, C, D].entries()) {
      waiting.set(agent, ask(kernel, LEASE, agent, { prefer: 'wait=20' }));
      await queueBecomes(kernel, [B, C, D].slice(0, i + 1));
    }
    let holder = A;
    for (const next of [B, C, D]) {
      await ask(kernel, RELEASE, holder);
      const newcomer = await ask(kernel, LEASE, E);
      expect(newcomer.status).toBe(409);
      expect(newcomer.body).toMatchObject({ holder: next });
      expect((await waiting.get(next)!).body).toMatchObject({ ok: true, lease: { holder: next } });
      await ask(kernel, RELEASE, E);
      holder = next;
    }
  });

  it('takes a request whose client went away out of the queue at once', async () => {
    const kernel = await start();
    await ask(kernel, LEASE, A);
    const leaving = new AbortController();
    const gone = ask(kernel, LEASE, B, { prefer: 'wait=20', signal: leaving.signal });
    const staying = ask(kernel, LEASE, C, { prefer: 'wait=20' });
    await queueBecomes(kernel, [B, C]);
    leaving.abort();
    await expect(gone).rejects.toThrow();
    await queueBecomes(kernel, [C]);
    const released = await ask(kernel, RELEASE, A);
    const granted = await staying;
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: C } });
    expect(granted.at - released.at).toBeLessThan(10_000);
  });

  it('caps the wait, answers a refusal when it runs out, and holds at most maxHeld', async () => {
    const kernel = await start({ maxHeld: 1, maxWaitS: 1 });
    const first = await ask(kernel, LEASE, A, { prefer: 'wait=3600' });
    expect(first).toMatchObject({ status: 200, applied: 'wait=1' });
    const started = performance.now();
    const held = ask(kernel, LEASE, B, { prefer: 'wait=5' });
    await queueBecomes(kernel, [B]);
    const overflow = await ask(kernel, LEASE, C, { prefer: 'wait=5' });
    expect(overflow).toMatchObject({ status: 409, applied: undefined });
    const timedOut = await held;
    expect(timedOut).toMatchObject({ status: 409, applied: 'wait=1' });
    expect(timedOut.body).toMatchObject({ reason: 'lease_held', holder: A, stampede: {} });
    expect(timedOut.at - started).toBeGreaterThanOrEqual(900);
    expect(timedOut.at - started).toBeLessThan(10_000);
  });

  it('answers a revoked agent at once: revoked is final, not a wait', async () => {
    const kernel = await start();
    await ask(kernel, LEASE, A);
    await kernel.service.revoke(R, 'frozen');
    const refused = await ask(kernel, LEASE, A, { prefer: 'wait=20' });
    expect(refused.body).toMatchObject({ reason: 'revoked', message: 'frozen' });
  });
});

/** Timers that fire only when the test moves the clock. */
function fakeTimers(clock: { now: number }) {
  let queue: Array<{ at: number; run: () => void; id: number }> = [];
  let ids = 0;
  const asked: number[] = [];
  const timers: Timers = {
    set: (run, ms) => {
      asked.push(ms);
      queue.push({ at: clock.now + ms, run, id: (ids += 1) });
      return ids;
    },
    clear: (id) => (queue = queue.filter((t) => t.id !== id)),
  };
  // A few turns: a held request registers to listen (a promise) before its first ask gathers.
  const settle = async () => {
    for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  const advance = async (ms: number) => {
    const until = clock.now + ms;
    for (;;) {
      const due = queue.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      queue = queue.filter((t) => t !== due);
      clock.now = due.at;
      due.run();
      await settle();
    }
    clock.now = until;
    await settle();
  };
  return { timers, advance, asked, settle };
}

describe('stopping the kernel', () => {
  it('answers held requests at once instead of keeping the server open', async () => {
    const kernel = await startKernelServer({ store: memoryStore(), log: () => undefined });
    try {
      await request(kernel.url + LEASE, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ resource: R, actorDid: A }),
      }).then((res) => res.body.dump());
      const held = request(kernel.url + LEASE, {
        method: 'POST',
        headers: { 'content-type': 'application/json', prefer: 'wait=20' },
        body: JSON.stringify({ resource: R, actorDid: B }),
      });
      for (
        let i = 0;
        i < 500 && (await kernel.service.overview()).resources[0]?.queue.length !== 1;
        i++
      ) {
        await delay(10);
      }
      const stoppedAt = performance.now();
      await kernel.close();
      const answer = await held;
      expect(answer.statusCode).toBe(409);
      expect(await answer.body.json()).toMatchObject({ reason: 'lease_held', holder: A });
      expect(performance.now() - stoppedAt).toBeLessThan(10_000);
    } finally {
      await kernel.close().catch(() => undefined);
    }
  });
});

describe('held requests on an injected clock', () => {
  async function open() {
    const clock = { now: 1_000_000 };
    const table = new ResourceTable({ nextInLineWaitMs: 500, random: () => 0.5 });
    const { service } = await KernelService.open({
      table,
      store: memoryStore(),
      ledger: new Ledger(),
      now: () => clock.now,
    });
    const fake = fakeTimers(clock);
    const held = new HeldRequests(service, { timers: fake.timers });
    return { service, held, ...fake };
  }

  it('keeps its place in the queue however long it is held', async () => {
    const { service, held, advance, asked, settle } = await open();
    await service.lease(R, A);
    const signal = new AbortController().signal;
    const answer = held.lease(R, B, 20, signal);
    await settle();
    // Far past the place a poller keeps without asking (its wait plus 2 s of grace).
    await advance(10_000);
    expect(asked.slice(0, 3)).toEqual([500, 500, 500]);
    expect(await service.lease(R, C)).toMatchObject({ ok: false, position: 1 });
    await service.release(R, A);
    expect(await answer).toMatchObject({ appliedWaitS: 20, reply: { ok: true } });
    expect(held.size).toBe(0);
    await service.close();
  });

  it('asks again at once when the holder releases between its first ask and its hold', async () => {
    const { service, held, asked, settle } = await open();
    await service.lease(R, A);
    // The real service; only the first ask's answer comes once A has released (a release on
    // another replica heard just then), before the request is held.
    let first = true;
    const racing: typeof service = Object.create(service);
    racing.lease = async (...args) => {
      const reply = await service.lease(...args);
      if (first) {
        first = false;
        await service.release(R, A);
      }
      return reply;
    };
    const racingHeld = new HeldRequests(racing, { timers: { set: () => 0, clear: () => {} } });
    const answer = racingHeld.lease(R, B, 20, new AbortController().signal);
    const stillHeld = async () => {
      for (let i = 0; i < 20; i += 1) await settle();
      return 'still held';
    };
    // Granted with no timer run: the wake that came before the hold was kept for it.
    expect(await Promise.race([answer, stillHeld()])).toMatchObject({
      appliedWaitS: 20,
      reply: { ok: true },
    });
    expect(asked).toEqual([]);
    held.close();
    racingHeld.close();
    await service.close();
  });

  it('answers the last refusal when the applied wait runs out', async () => {
    const { service, held, advance, settle } = await open();
    await service.lease(R, A);
    const answer = held.lease(R, B, 3, new AbortController().signal);
    await settle();
    await advance(3_000);
    expect(await answer).toMatchObject({ appliedWaitS: 3, reply: { reason: 'lease_held' } });
    await service.close();
  });
});

describe('reading Prefer (RFC 7240)', () => {
  it.each([
    [undefined, undefined],
    ['wait=10', 10],
    ['respond-async, WAIT = 7', 7],
    ['wait="3"; foo=bar', 3],
    ['wait=2, wait=9', 2],
    ['wait=-1', undefined],
    ['wait=soon', undefined],
    ['wait=99999999999', undefined],
    ['handling=lenient', undefined],
  ])('%s → %s', (header, expected) => {
    expect(preferredWait(header)).toBe(expected);
  });
});
