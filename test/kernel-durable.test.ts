import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { LeaseKernel, MAX_RESERVATION_MS, ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { StoreError } from '../src/kernel/store/store-error.js';
import { fileStore, memoryStore, type KernelStore } from '../src/kernel/store/store.js';
import { KernelService } from '../src/kernel/service/service.js';
import { Ledger } from '../src/ledger/ledger.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { createHttpClient } from '../src/http/client.js';
import { createAuthorizer } from '../src/kernel/auth/authorize.js';
import { RUN_CLAIMS, startFakeIssuer, acmeOidc } from './support/fake-oidc.js';
import { postJson } from './support/http.js';
import { A, B, LEASE } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

let running: RunningKernel | undefined;
closeAfterEach(() => [running]);

/** A store whose writes fail while `broken` is set: a fault injected through the interface. */
function faulty(inner: KernelStore) {
  const control = { broken: false, writes: 0 };
  const store: KernelStore = {
    ...inner,
    append: async (text, entries) => {
      control.writes += 1;
      if (control.broken) throw new StoreError('EIO: injected');
      return inner.append(text, entries);
    },
    probe: async () => {
      if (control.broken) throw new StoreError('EIO: injected');
    },
  };
  return { store, control };
}

const post = postJson;

async function get(url: string, path: string) {
  const res = await request(url + path);
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

describe('store faults', () => {
  it("tell why /readyz is not ready only to the kernel's keys; others get not ready", async () => {
    const { store, control } = faulty(memoryStore());
    const KEY = 'the-kernel-key-of-some-length';
    running = await startKernelServer({ store, key: KEY, log: () => undefined });
    const readyz = async (authorization?: string) => {
      const res = await request(`${running!.url}/readyz`, {
        headers: authorization ? { authorization } : {},
      });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    control.broken = true;
    expect(await readyz(`Bearer ${KEY}`)).toMatchObject({
      status: 503,
      body: {
        ok: false,
        reason: 'store_unavailable',
        message: expect.stringMatching(/EIO: injected/),
      },
    });
    for (const stranger of [undefined, 'Bearer wrong']) {
      expect(await readyz(stranger)).toEqual({
        status: 503,
        body: {
          ok: false,
          reason: 'not_ready',
          message: "The kernel is not ready; its key's holders can ask /readyz why.",
        },
      });
    }
    control.broken = false;
    expect(await readyz()).toEqual({ status: 200, body: { ok: true } });
  });

  it('tell why /readyz is not ready on an OIDC kernel only to the admin key, not to any token', async () => {
    const { store, control } = faulty(memoryStore());
    const ADMIN = 'the-admin-key-of-some-length';
    const issuer = await startFakeIssuer();
    const http = createHttpClient();
    try {
      running = await startKernelServer({
        store,
        adminKey: ADMIN,
        auth: createAuthorizer({ oidc: acmeOidc(issuer.url, http) }),
        // What a notifier adds to /readyz: its failed deliveries, named by resource.
        onService: () => ({ health: () => ({ notifications: { failed: 1 } }) }),
        log: () => undefined,
      });
      const readyz = async (authorization: string) => {
        const res = await request(`${running!.url}/readyz`, { headers: { authorization } });
        return { status: res.statusCode, text: await res.body.text() };
      };
      // A run of a repository the policy allows nothing: its token verifies, and tells nothing.
      const unrelated = await issuer.sign({
        claims: { ...RUN_CLAIMS, repository: 'stranger/elsewhere', repository_owner: 'stranger' },
      });
      expect(await readyz(`Bearer ${unrelated}`)).toEqual({ status: 200, text: '{"ok":true}' });
      expect(JSON.parse((await readyz(`Bearer ${ADMIN}`)).text)).toEqual({
        ok: true,
        notifications: { failed: 1 },
      });
      control.broken = true;
      const allowed = await issuer.sign({ claims: RUN_CLAIMS });
      for (const token of [unrelated, allowed]) {
        const answer = await readyz(`Bearer ${token}`);
        expect(answer.status).toBe(503);
        expect(JSON.parse(answer.text)).toMatchObject({ reason: 'not_ready' });
        expect(answer.text).not.toMatch(/EIO/);
      }
      const admin = await readyz(`Bearer ${ADMIN}`);
      expect({ status: admin.status, body: JSON.parse(admin.text) as unknown }).toMatchObject({
        status: 503,
        body: { reason: 'store_unavailable', message: expect.stringMatching(/EIO: injected/) },
      });
    } finally {
      await running?.close();
      running = undefined;
      await http.close();
      await issuer.close();
    }
  });

  it('answer 503, change nothing, crash nothing, and heal by themselves', async () => {
    const { store, control } = faulty(memoryStore());
    const logged: string[] = [];
    running = await startKernelServer({
      store,
      table: new ResourceTable({ ttlMs: 300 }),
      log: (line) => logged.push(line),
    });
    const { url, service } = running;
    expect((await post(url, LEASE, { resource: 'r', actorDid: A })).status).toBe(200);
    control.broken = true;
    const refused = await post(url, LEASE, { resource: 's', actorDid: B });
    expect(refused).toMatchObject({
      status: 503,
      body: { ok: false, reason: 'store_unavailable' },
    });
    expect(await service.status('s')).toBeNull();
    expect(service.ledger.size).toBe(1);
    expect((await get(url, '/readyz')).body).toMatchObject({ reason: 'store_unavailable' });
    expect((await get(url, '/healthz')).body).toEqual({ ok: true });
    // The lapse alarm fails to write meanwhile: logged, retried, never thrown.
    for (let i = 0; i < 40 && logged.length === 0; i += 1)
      await new Promise((r) => setTimeout(r, 50));
    expect(logged[0]).toMatch(/could not record a lapse on r: .*EIO: injected/);
    control.broken = false;
    expect((await get(url, '/readyz')).status).toBe(200);
    const granted = await post(url, LEASE, { resource: 's', actorDid: B });
    expect(granted).toMatchObject({ status: 200, body: { lease: { holder: B, fence: 3 } } });
    const lapsedR = () =>
      Array.from({ length: service.ledger.size }, (_, i) => service.ledger.entry(i)).some(
        (e) => e?.kind === 'lapse' && e.resource === 'r',
      );
    for (let i = 0; i < 80 && !lapsedR(); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(lapsedR()).toBe(true);
    expect(service.ledger.entry(1)).toMatchObject({ kind: 'grant', resource: 's', fence: 3 });
  });

  it('share one write per event-loop turn (group commit)', async () => {
    const { store, control } = faulty(memoryStore());
    const { service } = await KernelService.open({
      table: new ResourceTable(),
      store,
      ledger: new Ledger(),
      now: () => 1_000,
    });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => service.lease(`r${i}`, A)),
    );
    expect(replies.every((r) => r.ok)).toBe(true);
    expect(control.writes).toBe(1);
    expect(service.ledger.size).toBe(20);
  });
});

describe('fence seeding from what is durable', () => {
  const key = generateKeyPairSync('ed25519').privateKey;
  async function startOn(dir: string) {
    const log = join(dir, 'state.json.ledger.jsonl');
    return KernelService.open({
      table: new ResourceTable(),
      store: fileStore(log),
      ledger: new Ledger(key),
      now: () => Date.now(),
    });
  }
  const fresh = () => mkdtempSync(join(tmpdir(), 'lease-gate-seed-'));

  it('no log, no state file: a new plane, fences from 1', async () => {
    const { service } = await startOn(fresh());
    expect(await service.lease('r', A)).toMatchObject({ lease: { fence: 1 } });
    await service.close();
  });

  it('log present, state file missing or moved away: fences continue from the log', async () => {
    const dir = fresh();
    const first = (await startOn(dir)).service;
    for (let i = 0; i < 5; i += 1) await first.lease(`r${i}`, A);
    await first.close();
    const again = (await startOn(dir)).service;
    expect(await again.status('r4')).toMatchObject({ holder: A, fence: 5 });
    expect(await again.lease('x', B)).toMatchObject({ lease: { fence: 6 } });
    await again.close();
  });
});

describe('revoke and reservations', () => {
  it('revoke is final for the revoked agent; others take the resource once it gives back', async () => {
    let now = 1_000;
    const { service } = await KernelService.open({
      table: new ResourceTable({ ttlMs: 1_000 }),
      store: memoryStore(),
      ledger: new Ledger(),
      now: () => now,
    });
    await service.lease('r', A);
    await service.lease('r', B);
    await service.revoke('r', 'incident 42');
    const free = { ok: false, reason: 'revoked', holder: A, message: 'incident 42' };
    expect(await service.lease('r', A)).toEqual(free);
    // Still A's until it gives the resource back (its command stopped) or the lock-delay ends.
    expect(await service.lease('r', B)).toMatchObject({ reason: 'lease_held', holder: A });
    await service.release('r', A);
    expect(await service.lease('r', B)).toMatchObject({ ok: true, lease: { holder: B } });
    // Still refused while it keeps asking, past one lease lifetime after the revoke.
    for (let i = 0; i < 5; i += 1) {
      now += 900;
      expect(await service.lease('r', A)).toMatchObject({ reason: 'revoked', holder: B });
      await service.lease('r', B);
    }
    await service.release('r', B);
    now += 1_001;
    expect(await service.lease('r', A)).toMatchObject({ ok: true });
  });

  it('a revoke still refuses one lease lifetime after a restart, until a later grant', async () => {
    let now = 1_000;
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-revoke-'));
    const open = () =>
      KernelService.open({
        table: new ResourceTable({ ttlMs: 1_000 }),
        store: fileStore(join(dir, 'state.json.ledger.jsonl')),
        ledger: new Ledger(),
        now: () => now,
      });
    const first = (await open()).service;
    await first.lease('r', A);
    await first.lease('q', A);
    await first.revoke('r', 'incident 42');
    await first.revoke('q', 'incident 43');
    now = 1_800;
    expect(await first.lease('r', A)).toMatchObject({ reason: 'revoked' });
    // q's refusal ran out unasked, so A is granted q again: the log shows that end.
    now = 2_100;
    expect(await first.lease('q', A)).toMatchObject({ ok: true });
    await first.release('q', A);
    await first.close();
    // Restarted 2.5 s after the revoke, 1.7 s after A's last ask on r.
    now = 3_500;
    const second = (await open()).service;
    expect(await second.lease('q', A)).toMatchObject({ ok: true });
    await second.release('q', A);
    now = 4_400;
    expect(await second.lease('r', A)).toEqual({
      ok: false,
      reason: 'revoked',
      holder: A,
      message: 'incident 42',
    });
    now = 5_401;
    expect(await second.lease('r', A)).toMatchObject({ ok: true, lease: { holder: A } });
    await second.close();
  });

  it("a revoke refuses the holder's whole run attempt, also after a restart", async () => {
    let now = 1_000;
    const run = 'did:web:github.com:acme:shop:actions:runs:4242:attempts:1:jobs';
    const [held, fresh, otherJob] = [`${run}:deploy:n1`, `${run}:deploy:n2`, `${run}:eu:n3`];
    const rerun = 'did:web:github.com:acme:shop:actions:runs:4242:attempts:2:jobs:deploy:n4';
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-revoke-run-'));
    const open = () =>
      KernelService.open({
        table: new ResourceTable({ ttlMs: 1_000, lockDelayMs: 0 }),
        store: fileStore(join(dir, 'state.json.ledger.jsonl')),
        ledger: new Ledger(),
        now: () => now,
      });
    const first = (await open()).service;
    await first.lease('r', held);
    await first.lease('r', otherJob); // waits: the revoke drops it from the queue too
    await first.revoke('r', 'incident 44');
    for (const did of [held, fresh, otherJob]) {
      expect(await first.lease('r', did)).toMatchObject({
        reason: 'revoked',
        message: 'incident 44',
      });
    }
    await first.close();
    now = 1_500;
    const second = (await open()).service;
    expect(await second.lease('r', fresh)).toMatchObject({ reason: 'revoked' });
    // Another attempt is another run: granted (no lock-delay here), and the log shows it.
    expect(await second.lease('r', rerun)).toMatchObject({ ok: true });
    await second.release('r', rerun);
    // Refused a lease lifetime after the last ask, then granted; a restart then keeps no refusal.
    now = 2_501;
    expect(await second.lease('r', fresh)).toMatchObject({ ok: true, lease: { holder: fresh } });
    await second.release('r', fresh);
    await second.close();
    const third = (await open()).service;
    expect(await third.lease('r', otherJob)).toMatchObject({ ok: true });
    await third.close();
  });

  it('keeps a freed resource for the next in line at most 2.5 s, whatever others were told', () => {
    const kernel = new LeaseKernel({ ttlMs: 600_000, random: () => 0.5 });
    // A long hold teaches the kernel that holds are long, so those behind are told long waits.
    kernel.lease('r', A, 0);
    kernel.release('r', A, 60_000);
    kernel.lease('r', A, 60_000);
    const waits = ['did:web:w:1', 'did:web:w:2', 'did:web:w:3'].map((w) =>
      kernel.lease('r', w, 60_001),
    );
    expect(waits.map((w) => !w.ok && w.reason === 'lease_held' && w.stampede.waitMs)).toEqual([
      500, 33_000, 66_000,
    ]);
    kernel.release('r', A, 61_000);
    expect(kernel.lease('r', B, 62_000)).toMatchObject({
      ok: false,
      reserved: true,
      holder: 'did:web:w:1',
    });
    expect(kernel.lease('r', B, 61_000 + MAX_RESERVATION_MS)).toMatchObject({ ok: true });
  });
});

describe('routes', () => {
  it('pages the bundle: one checkpoint per export, a cursor, bounded limits', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    running = await startKernelServer({ ledger: new Ledger(privateKey) });
    const { url, service } = running;
    for (let i = 0; i < 1_250; i += 1) await service.lease(`r${i}`, A);
    const first = await get(url, '/api/v1/acp/ledger/bundle?limit=1000');
    expect((first.body.entries as unknown[]).length).toBe(1_000);
    await service.lease('late', B);
    const second = await get(url, `/api/v1/acp/ledger/bundle?cursor=${first.body.next as string}`);
    expect(second.body.checkpoint).toBe(first.body.checkpoint);
    expect((second.body.entries as unknown[]).length).toBe(250);
    expect(second.body.next).toBeNull();
    const tooMany = await get(url, '/api/v1/acp/ledger/bundle?limit=10001');
    expect(tooMany).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^limit: .*1 to 10000/) },
    });
    expect((await get(url, '/api/v1/acp/ledger/bundle?cursor=bogus')).status).toBe(400);
    const seen: number[] = [];
    const { bundle } = await fetchLedger(url, undefined, (n) => seen.push(n));
    // The export follows pages of 100 (ledger/remote.ts), with progress after each.
    expect(seen).toEqual([...Array.from({ length: 12 }, (_, i) => (i + 1) * 100), 1_251]);
    expect(verifyBundle(bundle, publicKey)).toMatchObject({ size: 1_251, count: 1_251 });
  });

  it('lists resources with a lease, a reservation or waiters', async () => {
    running = await startKernelServer({});
    await running.service.lease('lock:a', A);
    await running.service.lease('lock:a', B);
    const { body } = await get(running.url, '/api/v1/kernel/resources');
    expect(body).toMatchObject({
      ok: true,
      resources: [
        {
          resource: 'lock:a',
          lease: { holder: A, fence: 1 },
          reserved: null,
          queue: [{ actorDid: B, position: 0 }],
        },
      ],
    });
  });

  it('refuses cross-origin changes', async () => {
    running = await startKernelServer({});
    const other = await post(
      running.url,
      LEASE,
      { resource: 'r', actorDid: A },
      { origin: 'https://evil.example' },
    );
    expect(other).toMatchObject({ status: 403, body: { reason: 'cross_origin' } });
    const site = await post(
      running.url,
      LEASE,
      { resource: 'r', actorDid: A },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(site.status).toBe(403);
    const own = new URL(running.url).host;
    expect(
      (await post(running.url, LEASE, { resource: 'r', actorDid: A }, { origin: `http://${own}` }))
        .status,
    ).toBe(200);
  });

  const raw = (url: string, text: string) =>
    new Promise<string>((resolve) => {
      const { hostname, port } = new URL(url);
      const socket = connect(Number(port), hostname, () => socket.write(text));
      let got = '';
      socket.on('data', (d) => (got += d.toString()));
      socket.on('close', () => resolve(got));
      socket.on('error', () => resolve(got));
    });

  it.each([
    ['garbage', 'NOT HTTP AT ALL\r\n\r\n', 400, 'bad_request'],
    [
      'oversized headers',
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
  ])('answers malformed HTTP (%s) with JSON', async (_what, text, status, reason) => {
    running = await startKernelServer({});
    const answer = await raw(running.url, text);
    expect(answer).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      ok: false,
      reason,
    });
  });

  it('logs a client that aborts mid-body as one line, without a 500', async () => {
    const logged: string[] = [];
    running = await startKernelServer({ log: (line) => logged.push(line) });
    const { hostname, port } = new URL(running.url);
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${LEASE} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"resou`,
      );
      setTimeout(() => socket.destroy(), 50);
    });
    for (let i = 0; i < 40 && logged.length === 0; i += 1)
      await new Promise((r) => setTimeout(r, 25));
    expect(logged).toEqual([`kernel: the client went away before its POST ${LEASE} body ended`]);
  });
});
