import { afterAll, expect, it } from 'vitest';
import { request } from 'undici';
import { startReplica } from './support/pg-kernel.js';
import { describePostgres, testSchema } from './support/postgres.js';
import { describeEachStore } from './support/store-kernels.js';
import { postJson } from './support/http.js';
import { A, B, LEASE, R, RELEASE, REVOKE } from './support/names.js';

/**
 * The watch on one's own lease (POST …/watch), against every store: held
 * until the lease ends, answered with how and when; and after a revoke the
 * next holder waits for the revoked one to give back.
 */

const WATCH = '/api/v1/acp/coordination/watch';
const ADMIN = 'watch-admin-key';

const send = postJson;

async function grant(url: string, actorDid: string): Promise<string> {
  const answer = await send(url, LEASE, { resource: R, actorDid });
  const lease = answer.body.lease as { id: string } | undefined;
  if (!lease) throw new Error(`expected a grant, got ${JSON.stringify(answer.body)}`);
  return lease.id;
}

/** Until the kernel's overview shows `actorDid` waiting on R (a held request has asked once). */
async function queued(url: string, actorDid: string) {
  for (let i = 0; i < 400; i += 1) {
    const res = await request(`${url}/api/v1/kernel/resources`);
    const body = (await res.body.json()) as {
      resources: Array<{ queue: Array<{ actorDid: string }> }>;
    };
    if (body.resources.some((r) => r.queue.some((w) => w.actorDid === actorDid))) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${actorDid} never queued`);
}

describeEachStore('the watch on one’s own lease', (start) => {
  it('is answered the moment a revoke ends the lease, and the next holder waits for the give-back', async () => {
    // The next in line is told to ask again only after the lock-delay: a grant soon after the
    // give-back comes from the wake.
    const { url } = await start({ adminKey: ADMIN, nextInLineWaitMs: 20_000 });
    const leaseId = await grant(url, A);
    const still = await send(url, WATCH, { resource: R, actorDid: A, leaseId });
    expect(still.body).toMatchObject({ ok: true, ended: false, lease: { id: leaseId, holder: A } });
    const watching = send(url, WATCH, { resource: R, actorDid: A, leaseId }, { prefer: 'wait=20' });
    const waiting = send(url, LEASE, { resource: R, actorDid: B }, { prefer: 'wait=20' });
    await queued(url, B);
    const before = Date.now();
    await send(
      url,
      REVOKE,
      { resource: R, reason: 'incident <42>' },
      { authorization: `Bearer ${ADMIN}` },
    );
    const watched = await watching;
    const answeredAt = Date.now();
    // Generous for two busy cores: without the wake it would wait the full 20 s.
    expect(answeredAt - before).toBeLessThan(10_000);
    expect(watched.headers['preference-applied']).toBe('wait=20');
    expect(watched.body).toMatchObject({
      ok: true,
      ended: true,
      reason: 'revoked',
      leaseId,
      message: 'incident <42>',
    });
    const endedAtMs = watched.body.endedAtMs as number;
    expect(endedAtMs).toBeGreaterThanOrEqual(before - 1_000);
    expect(endedAtMs).toBeLessThanOrEqual(answeredAt + 1_000);
    // B is not granted while A has not given back: a fresh ask names A.
    const meanwhile = await send(url, LEASE, {
      resource: R,
      actorDid: 'did:web:acme.example:agent:c',
    });
    expect(meanwhile.body).toMatchObject({ ok: false, reason: 'lease_held', holder: A });
    const gaveBackAt = Date.now();
    await send(url, RELEASE, { resource: R, actorDid: A });
    const granted = await waiting;
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: B } });
    expect(Date.now() - gaveBackAt).toBeLessThan(8_000);
  });

  it('says released, lapsed or still held, and lets only the holder watch', async () => {
    const { url } = await start({ ttlMs: 3_000 });
    const leaseId = await grant(url, A);
    const other = await send(url, WATCH, { resource: R, actorDid: B, leaseId });
    expect(other).toMatchObject({ status: 403, body: { ok: false, reason: 'not_your_lease' } });
    const bad = await send(url, WATCH, { resource: R, actorDid: A });
    expect(bad).toMatchObject({ status: 400, body: { reason: 'bad_request' } });
    expect((bad.body.message as string).startsWith('leaseId')).toBe(true);
    // Not ended within its wait: answered "still held" when the wait runs out.
    const renewed = await send(
      url,
      WATCH,
      { resource: R, actorDid: A, leaseId },
      { prefer: 'wait=1' },
    );
    expect(renewed.body).toMatchObject({ ended: false });
    expect(renewed.headers['preference-applied']).toBe('wait=1');
    const lapsed = await send(
      url,
      WATCH,
      { resource: R, actorDid: A, leaseId },
      { prefer: 'wait=20' },
    );
    expect(lapsed.body).toMatchObject({ ended: true, reason: 'lapsed', leaseId });
    const second = await grant(url, A);
    const releasing = send(
      url,
      WATCH,
      { resource: R, actorDid: A, leaseId: second },
      { prefer: 'wait=20' },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await send(url, RELEASE, { resource: R, actorDid: A });
    expect((await releasing).body).toMatchObject({ ended: true, reason: 'released' });
    // Asked after the end: answered at once, from what the kernel heard.
    const late = await send(url, WATCH, { resource: R, actorDid: A, leaseId: second });
    expect(late.body).toMatchObject({ ended: true, reason: 'released', leaseId: second });
    const taken = await grant(url, B);
    const replaced = await send(
      url,
      WATCH,
      { resource: R, actorDid: A, leaseId },
      { prefer: 'wait=5' },
    );
    expect(replaced.body).toMatchObject({ ended: true, reason: 'lapsed', holder: B });
    expect(taken).not.toBe(leaseId);
    expect(await send(url, WATCH, { resource: R, actorDid: B, leaseId })).toMatchObject({
      status: 403,
    });
  });
});

describePostgres('the watch across PostgreSQL replicas', () => {
  const drops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });

  it('a revoke on one replica answers a watch held on another', async () => {
    const { schema, drop } = await testSchema();
    drops.push(drop);
    const one = await startReplica(schema, { adminKey: ADMIN, nextInLineWaitMs: 20_000 });
    const two = await startReplica(schema, { adminKey: ADMIN, nextInLineWaitMs: 20_000 });
    try {
      const leaseId = await grant(one.url, A);
      const watching = send(
        two.url,
        WATCH,
        { resource: R, actorDid: A, leaseId },
        { prefer: 'wait=20' },
      );
      const waiting = send(two.url, LEASE, { resource: R, actorDid: B }, { prefer: 'wait=20' });
      await queued(two.url, B);
      const before = Date.now();
      await send(
        one.url,
        REVOKE,
        { resource: R, reason: 'from one' },
        { authorization: `Bearer ${ADMIN}` },
      );
      const watched = await watching;
      expect(Date.now() - before).toBeLessThan(10_000);
      expect(watched.body).toMatchObject({ ended: true, reason: 'revoked', message: 'from one' });
      // The give-back on replica one wakes B's request held on replica two.
      const gaveBackAt = Date.now();
      await send(one.url, RELEASE, { resource: R, actorDid: A });
      expect((await waiting).body).toMatchObject({ ok: true, lease: { holder: B } });
      expect(Date.now() - gaveBackAt).toBeLessThan(8_000);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('answers a watch on an end the replica never heard, from the database', async () => {
    const { schema, drop } = await testSchema();
    drops.push(drop);
    const one = await startReplica(schema, { adminKey: ADMIN });
    try {
      const released = await grant(one.url, A);
      await send(one.url, RELEASE, { resource: R, actorDid: A });
      const revoked = await grant(one.url, A);
      // A reason that spells out the first lease's field: its quotes are escaped in the
      // ledger's lines, so the search does not take it for that lease's entry.
      const reason = `not "leaseId":"${released}"`;
      const admin = { authorization: `Bearer ${ADMIN}` };
      await send(one.url, REVOKE, { resource: R, reason }, admin);
      await send(one.url, RELEASE, { resource: R, actorDid: A });
      // Started after all of it: nothing told it of these ends.
      const two = await startReplica(schema, { adminKey: ADMIN });
      try {
        const first = await send(two.url, WATCH, { resource: R, actorDid: A, leaseId: released });
        expect(first.body).toMatchObject({ ended: true, reason: 'released', leaseId: released });
        const second = await send(two.url, WATCH, { resource: R, actorDid: A, leaseId: revoked });
        expect(second.body).toMatchObject({ ended: true, reason: 'revoked', message: reason });
        const stranger = await send(two.url, WATCH, {
          resource: R,
          actorDid: B,
          leaseId: released,
        });
        expect(stranger.status).toBe(403);
      } finally {
        await two.close();
      }
    } finally {
      await one.close();
    }
  });
});
