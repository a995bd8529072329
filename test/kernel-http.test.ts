import fc from 'fast-check';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { LeaseKernel } from '../src/kernel/core.js';
import { Ledger } from '../src/ledger/ledger.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/server.js';
import { memoryStore } from '../src/kernel/store.js';
import { createPlaneClient } from '../src/plane/client.js';
import { KeyRefusedError } from '../src/plane/errors.js';

const LEASE = '/api/v1/acp/coordination/lease';
const A = 'did:web:acme.example:agent:a';
const B = 'did:web:acme.example:agent:b';
let running: RunningKernel | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(options: { key?: string; adminKey?: string; ttlMs?: number } = {}) {
  running = await startKernelServer({
    kernel: new LeaseKernel({ ttlMs: options.ttlMs ?? 30_000 }),
    store: memoryStore(),
    key: options.key,
    adminKey: options.adminKey,
  });
  return running.url;
}

async function send(
  url: string,
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const res = await request(url + path, {
    method: (init.method ?? 'POST') as 'POST',
    body: init.body ?? null,
    headers: { 'content-type': 'application/json', ...init.headers },
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: JSON.parse(text) as Record<string, unknown> };
}

describe('the kernel over HTTP', () => {
  it('serves the documented contract to the real client', async () => {
    const url = await start();
    const a = createPlaneClient({ apiUrl: url });
    const granted = await a.lease({ resource: 'lock:deploy/production', actorDid: A });
    expect(granted).toMatchObject({ kind: 'granted', lease: { holder: A, fence: 1 } });
    const refused = await a.lease({ resource: 'lock:deploy/production', actorDid: B });
    expect(refused).toMatchObject({ kind: 'held', holder: A });
    expect(await a.status('lock:deploy/production')).toMatchObject({ holder: A });
    expect(await a.release({ resource: 'lock:deploy/production', actorDid: B })).toEqual({
      released: false,
      releasedIds: [],
    });
    const released = await a.release({ resource: 'lock:deploy/production', actorDid: A });
    expect(released.releasedIds).toEqual([granted.kind === 'granted' ? granted.lease.id : '']);
    expect(await a.status('lock:deploy/production')).toBeNull();
  });

  it('ignores ttlMs as the plane does, and answers a refusal with 409', async () => {
    const url = await start();
    const first = await send(url, LEASE, {
      body: JSON.stringify({ resource: 'r', actorDid: A, ttlMs: 5 }),
    });
    const lease = first.body.lease as { expiresAtMs: number };
    expect(lease.expiresAtMs - Date.now()).toBeGreaterThan(29_000);
    const second = await send(url, LEASE, { body: JSON.stringify({ resource: 'r', actorDid: B }) });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ ok: false, reason: 'lease_held', holder: A });
  });

  it.each([
    ['not JSON', { body: '{oops' }, 400, 'bad_json'],
    ['a wrong type', { body: JSON.stringify({ resource: 7, actorDid: A }) }, 400, 'bad_request'],
    [
      'a bad DID',
      { body: JSON.stringify({ resource: 'r', actorDid: 'alice' }) },
      400,
      'bad_request',
    ],
    ['no body', { body: '' }, 400, 'bad_json'],
    ['an array', { body: '[]' }, 400, 'bad_request'],
    [
      'another media type',
      { body: '{}', headers: { 'content-type': 'text/plain' } },
      415,
      'unsupported_media_type',
    ],
    [
      'an oversized body',
      { body: JSON.stringify({ resource: 'r', actorDid: A, pad: 'x'.repeat(70_000) }) },
      413,
      'payload_too_large',
    ],
  ])('rejects %s with a JSON 4xx', async (_what, init, status, reason) => {
    const url = await start();
    const answer = await send(url, LEASE, init);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ ok: false, reason, message: expect.any(String) });
  });

  it('names the offending field', async () => {
    const url = await start();
    const answer = await send(url, LEASE, { body: JSON.stringify({ resource: 'r' }) });
    expect(answer.body.message).toMatch(/^actorDid:/);
  });

  it('answers 404 and 405 for unknown routes and methods', async () => {
    const url = await start();
    expect((await send(url, '/nope')).status).toBe(404);
    expect((await send(url, '/api/v1/acp/coordination/release', { method: 'GET' })).status).toBe(
      405,
    );
  });

  it('requires its key when started with one', async () => {
    const url = await start({ key: 'agents-key' });
    await expect(
      createPlaneClient({ apiUrl: url }).lease({ resource: 'r', actorDid: A }),
    ).rejects.toThrow(KeyRefusedError);
    await expect(createPlaneClient({ apiUrl: url, key: 'wrong' }).status('r')).rejects.toThrow(
      KeyRefusedError,
    );
    const ok = await createPlaneClient({ apiUrl: url, key: 'agents-key' }).lease({
      resource: 'r',
      actorDid: A,
    });
    expect(ok.kind).toBe('granted');
  });

  it('revokes only with the admin key, distinct from the agents key', async () => {
    const url = await start({ key: 'agents-key', adminKey: 'admin-key' });
    const agent = createPlaneClient({ apiUrl: url, key: 'agents-key' });
    await agent.lease({ resource: 'r', actorDid: A });
    await expect(agent.revoke('r', 'why', 'agents-key')).rejects.toThrow(KeyRefusedError);
    expect(await agent.revoke('r', 'incident 42', 'admin-key')).toEqual({ revoked: true });
    expect(await agent.status('r')).toBeNull();
    expect(await agent.revoke('r', 'again', 'admin-key')).toEqual({ revoked: false });
  });

  it('refuses to revoke when no admin key is configured', async () => {
    const url = await start();
    const answer = await send(url, '/api/v1/acp/coordination/revoke', {
      body: JSON.stringify({ resource: 'r' }),
    });
    expect(answer).toMatchObject({ status: 403, body: { reason: 'revoke_disabled' } });
  });

  it('never answers 5xx nor stops serving, whatever the body', async () => {
    const url = await start();
    const paths = [LEASE, '/api/v1/acp/coordination/release', '/api/v1/acp/coordination/revoke'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify({ resource: v, actorDid: v })),
        ),
        async (path, body) => {
          const res = await request(url + path, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json' },
          });
          await res.body.text();
          expect(res.statusCode).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
    expect(
      (await send(url, LEASE, { body: JSON.stringify({ resource: 'r', actorDid: A }) })).status,
    ).toBe(200);
  });

  it('serves the ledger: a text checkpoint and bundles over a range', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    running = await startKernelServer({
      kernel: new LeaseKernel(),
      store: memoryStore(),
      ledger: new Ledger(privateKey),
    });
    const client = createPlaneClient({ apiUrl: running.url });
    await client.lease({ resource: 'r', actorDid: A });
    await client.release({ resource: 'r', actorDid: A });
    await client.lease({ resource: 'r', actorDid: B });
    const checkpoint = await request(`${running.url}/api/v1/acp/ledger/checkpoint`);
    expect(checkpoint.headers['content-type']).toMatch(/^text\/plain/);
    expect((await checkpoint.body.text()).split('\n').slice(1, 2)).toEqual(['3']);
    const range = await send(running.url, '/api/v1/acp/ledger/bundle?from=1&to=3', {
      method: 'GET',
    });
    expect(verifyBundle(range.body, publicKey, { allowPartial: true })).toMatchObject({
      first: 1,
      count: 2,
    });
    expect(
      (await send(running.url, '/api/v1/acp/ledger/bundle?from=2&to=9', { method: 'GET' })).status,
    ).toBe(400);
    expect(
      (await send(running.url, '/api/v1/acp/ledger/bundle?from=x', { method: 'GET' })).status,
    ).toBe(400);
  });

  it('keeps its log but signs nothing without a signing key, and says so', async () => {
    const url = await start();
    expect(
      (await send(url, '/api/v1/acp/ledger/checkpoint', { method: 'GET' })).body,
    ).toMatchObject({ reason: 'no_signing_key' });
  });

  it('lapses a lease on its alarm', async () => {
    const url = await start({ ttlMs: 150 });
    const client = createPlaneClient({ apiUrl: url });
    await client.lease({ resource: 'r', actorDid: A });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await client.status('r')).toBeNull();
  });
});
