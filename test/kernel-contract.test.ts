import fc from 'fast-check';
import { generateKeyPairSync } from 'node:crypto';
import { request } from 'undici';
import { expect, it } from 'vitest';
import { verifyBundle } from '../src/ledger/verify.js';
import { createPlaneClient } from '../src/plane/client.js';
import { KeyRefusedError } from '../src/plane/errors.js';
import { send } from './support/http.js';
import { describeEachStore } from './support/store-kernels.js';
import { A, B, LEASE, R, RELEASE, REVOKE } from './support/names.js';

/**
 * The kernel's HTTP contract, the same tests against every store: memory,
 * the file log, and PostgreSQL (a schema of its own per kernel, dropped after;
 * skipped with one line when no PostgreSQL answers, failing instead in CI).
 */

describeEachStore("the kernel's HTTP contract", (start) => {
  it('serves the documented contract to the real client, renewals keep id and fence', async () => {
    const { url } = await start();
    const a = createPlaneClient({ apiUrl: url });
    const granted = await a.lease({ resource: R, actorDid: A });
    if (granted.kind !== 'granted') throw new Error(`expected a grant, got ${granted.kind}`);
    expect(granted.lease).toMatchObject({ holder: A, fence: 1 });
    expect(await a.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'held', holder: A });
    expect(await a.status(R)).toMatchObject({ holder: A, id: granted.lease.id });
    const renewed = await a.lease({ resource: R, actorDid: A });
    expect(renewed).toMatchObject({
      kind: 'granted',
      lease: { id: granted.lease.id, fence: granted.lease.fence },
    });
    expect(await a.release({ resource: R, actorDid: B })).toEqual({
      released: false,
      releasedIds: [],
    });
    const released = await a.release({ resource: R, actorDid: A });
    expect(released.releasedIds).toEqual([granted.lease.id]);
    expect(await a.status(R)).toBeNull();
    const next = await a.lease({ resource: 'lock:other', actorDid: B });
    expect(next).toMatchObject({ kind: 'granted', lease: { fence: 2 } });
  });

  it('ignores ttlMs as the plane does, and answers a refusal with 409', async () => {
    const { url } = await start();
    const first = await send(url, LEASE, { body: { resource: 'r', actorDid: A, ttlMs: 5 } });
    const lease = first.body.lease as { expiresAtMs: number };
    expect(lease.expiresAtMs - Date.now()).toBeGreaterThan(25_000);
    const second = await send(url, LEASE, { body: { resource: 'r', actorDid: B } });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ ok: false, reason: 'lease_held', holder: A });
    const { waitMs } = second.body.stampede as { waitMs: number };
    expect(Number.isInteger(waitMs) && waitMs >= 1 && waitMs <= 30_000).toBe(true);
  });

  it('requires its key when started with one', async () => {
    const { url } = await start({ key: 'agents-key' });
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

  it('revokes only with the admin key; the revoked agent is refused with the reason', async () => {
    const { url } = await start({ key: 'agents-key', adminKey: 'admin-key' });
    const agent = createPlaneClient({ apiUrl: url, key: 'agents-key' });
    await agent.lease({ resource: 'r', actorDid: A });
    await expect(agent.revoke('r', 'why', 'agents-key')).rejects.toThrow(KeyRefusedError);
    expect(await agent.revoke('r', 'incident 42', 'admin-key')).toMatchObject({
      revoked: true,
      holder: A,
    });
    expect(await agent.status('r')).toBeNull();
    expect(await agent.lease({ resource: 'r', actorDid: A })).toMatchObject({
      kind: 'revoked',
      message: 'incident 42',
    });
    expect(await agent.revoke('r', 'again', 'admin-key')).toEqual({ revoked: false });
    // B waits for A to give back (its lock-delay), then is granted.
    expect(await agent.lease({ resource: 'r', actorDid: B })).toMatchObject({
      kind: 'held',
      holder: A,
    });
    await agent.release({ resource: 'r', actorDid: A });
    expect(await agent.lease({ resource: 'r', actorDid: B })).toMatchObject({ kind: 'granted' });
  });

  it('refuses to revoke when no admin key is configured', async () => {
    const { url } = await start();
    const answer = await send(url, REVOKE, { body: { resource: 'r' } });
    expect(answer).toMatchObject({ status: 403, body: { reason: 'revoke_disabled' } });
  });

  it('keeps a freed resource for the next in line, and says so', async () => {
    const { url } = await start({ nextInLineWaitMs: 20_000 });
    const client = createPlaneClient({ apiUrl: url });
    await client.lease({ resource: R, actorDid: A });
    expect(await client.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'held' });
    await client.release({ resource: R, actorDid: A });
    const kept = await send(url, LEASE, { body: { resource: R, actorDid: 'did:web:c' } });
    expect(kept.body).toMatchObject({ ok: false, reserved: true, holder: B });
    expect(await client.lease({ resource: R, actorDid: B })).toMatchObject({ kind: 'granted' });
  });

  it('holds a request that prefers to wait and grants it when the holder releases', async () => {
    // The waiter is told to ask again only after 20 s: a grant within 10 s (from the release,
    // generous for two busy cores) comes from the wake.
    const { url } = await start({ nextInLineWaitMs: 20_000 });
    await send(url, LEASE, { body: { resource: R, actorDid: A } });
    const held = send(url, LEASE, {
      body: { resource: R, actorDid: B },
      headers: { prefer: 'wait=10' },
    });
    await queued(url, B);
    const releasedAt = performance.now();
    await send(url, RELEASE, { body: { resource: R, actorDid: A } });
    const answer = await held;
    expect(performance.now() - releasedAt).toBeLessThan(10_000);
    expect(answer.headers['preference-applied']).toBe('wait=10');
    expect(answer.body).toMatchObject({ ok: true, lease: { holder: B } });
  });

  it('never answers 5xx nor stops serving, whatever the body', async () => {
    const { url } = await start();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(LEASE, RELEASE, REVOKE),
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
      { numRuns: 200 },
    );
    expect((await send(url, LEASE, { body: { resource: 'r', actorDid: A } })).status).toBe(200);
  });

  it('serves the ledger: a text checkpoint and bundles over a range', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const { url } = await start({ signingKey: privateKey });
    const client = createPlaneClient({ apiUrl: url });
    await client.lease({ resource: 'r', actorDid: A });
    await client.release({ resource: 'r', actorDid: A });
    await client.lease({ resource: 'r', actorDid: B });
    const checkpoint = await request(`${url}/api/v1/acp/ledger/checkpoint`);
    expect(checkpoint.headers['content-type']).toMatch(/^text\/plain/);
    expect((await checkpoint.body.text()).split('\n').slice(1, 2)).toEqual(['3']);
    const range = await send(url, '/api/v1/acp/ledger/bundle?from=1&to=3', { method: 'GET' });
    expect(verifyBundle(range.body, publicKey, { allowPartial: true })).toMatchObject({
      first: 1,
      count: 2,
    });
    const bad = ['from=2&to=9', 'from=x'];
    for (const query of bad) {
      const answer = await send(url, `/api/v1/acp/ledger/bundle?${query}`, { method: 'GET' });
      expect(answer.status).toBe(400);
    }
  });

  it('keeps its log but signs nothing without a signing key, and says so', async () => {
    const { url } = await start();
    const answer = await send(url, '/api/v1/acp/ledger/checkpoint', { method: 'GET' });
    expect(answer.body).toMatchObject({ reason: 'no_signing_key' });
  });

  it('lapses an unrenewed lease', async () => {
    const { url } = await start({ ttlMs: 150 });
    const client = createPlaneClient({ apiUrl: url });
    await client.lease({ resource: 'r', actorDid: A });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await client.status('r')).toBeNull();
  });
});

/** Until the kernel's overview shows `actorDid` waiting on R; polled a bounded number of times. */
async function queued(url: string, actorDid: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    const { body } = await send(url, '/api/v1/kernel/resources', { method: 'GET' });
    const resources = body.resources as Array<{
      resource: string;
      queue: Array<{ actorDid: string }>;
    }>;
    if (resources.find((r) => r.resource === R)?.queue.some((w) => w.actorDid === actorDid)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${actorDid} never appeared in the queue of ${R}`);
}
