import fc from 'fast-check';
import { request } from 'undici';
import { expect, it } from 'vitest';
import { NEXT_IN_LINE_WAIT_MS } from '../src/kernel/rules.js';
import { describeEachStore } from './support/store-kernels.js';

/**
 * Random sequences of lease, release, revoke, freeze and unfreeze over HTTP, against every
 * store, checked step by step with a small model of who holds what, who
 * waits in which order and for whom a freed resource is kept. Runs are short
 * (well under the 2 s a waiter keeps its place and the reservation's 2.5 s),
 * so no clock-driven change is expected inside one; leases last 30 s.
 */

const AGENTS = ['did:web:model:a', 'did:web:model:b', 'did:web:model:c'];
const ADMIN = 'model-admin-key';

type Op =
  | { op: 'lease' | 'release'; agent: number; resource: number }
  | { op: 'revoke' | 'freeze' | 'unfreeze'; resource: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('lease' as const),
      agent: fc.nat(2),
      resource: fc.nat(1),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('release' as const),
      agent: fc.nat(2),
      resource: fc.nat(1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('revoke' as const), resource: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('freeze' as const), resource: fc.nat(1) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('unfreeze' as const), resource: fc.nat(1) }),
  },
);

interface Model {
  lease: { holder: string; id: string; fence: number } | null;
  /** Refused askers, in the order they first asked. */
  queue: string[];
  /** Whether a freed resource is kept for the head of the queue. */
  reserved: boolean;
  /** Agents revoked here (refused for a lease lifetime: the whole run). */
  revoked: Map<string, string>;
  /** The reason of an operator's freeze (untimed), or null. */
  frozen: string | null;
}

async function post(url: string, path: string, body: unknown, admin = false) {
  const res = await request(url + path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: {
      'content-type': 'application/json',
      ...(admin ? { authorization: `Bearer ${ADMIN}` } : {}),
    },
  });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

describeEachStore('the kernel against a model, over HTTP', (start) => {
  it('follows the model over random sequences of lease, release, revoke, freeze and unfreeze', async () => {
    const { url } = await start({ adminKey: ADMIN });
    let run = 0;
    let lastFence = 0;
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 5, maxLength: 20, size: 'max' }),
        async (ops) => {
          run += 1;
          const resources = [`lock:model/${run}/r0`, `lock:model/${run}/r1`];
          const models: Model[] = resources.map(() => ({
            lease: null,
            queue: [],
            reserved: false,
            revoked: new Map(),
            frozen: null,
          }));
          for (const step of ops) {
            steps += 1;
            const resource = resources[step.resource]!;
            const m = models[step.resource]!;
            if (step.op === 'revoke') {
              const answer = await post(
                url,
                '/api/v1/acp/coordination/revoke',
                { resource, reason: `r${steps}` },
                true,
              );
              expect(answer.body).toMatchObject({ ok: true, revoked: m.lease !== null });
              if (m.lease) {
                m.revoked.set(m.lease.holder, `r${steps}`);
                m.queue = m.queue.filter((a) => a !== m.lease!.holder);
                // Others may take it at once; revoking a free resource changes nothing.
                m.lease = null;
                m.reserved = false;
              }
              continue;
            }
            if (step.op === 'freeze' || step.op === 'unfreeze') {
              const reason = `f${steps}`;
              const answer = await post(
                url,
                `/api/v1/acp/coordination/${step.op}`,
                step.op === 'freeze' ? { resource, reason } : { resource },
                true,
              );
              const changed = step.op === 'freeze' || m.frozen !== null;
              expect(answer.body).toMatchObject({
                ok: true,
                frozen: step.op === 'freeze',
                changed,
              });
              m.frozen = step.op === 'freeze' ? reason : null;
              continue;
            }
            if (step.op !== 'lease' && step.op !== 'release') throw new Error('unreachable');
            const actorDid = AGENTS[step.agent]!;
            if (step.op === 'release') {
              const answer = await post(url, '/api/v1/acp/coordination/release', {
                resource,
                actorDid,
              });
              m.queue = m.queue.filter((a) => a !== actorDid);
              if (m.lease?.holder === actorDid) {
                expect(answer.body).toMatchObject({ released: true, releasedIds: [m.lease.id] });
                m.lease = null;
                m.reserved = m.queue.length > 0;
              } else {
                expect(answer.body).toMatchObject({ released: false, releasedIds: [] });
              }
              if (m.queue.length === 0) m.reserved = false;
              continue;
            }
            const answer = await post(url, '/api/v1/acp/coordination/lease', {
              resource,
              actorDid,
            });
            const reply = answer.body;
            const revokedWith = m.revoked.get(actorDid);
            if (revokedWith !== undefined) {
              expect(reply).toMatchObject({ ok: false, reason: 'revoked', message: revokedWith });
              continue;
            }
            const keptFor = !m.lease && m.reserved ? m.queue[0] : undefined;
            if (m.lease?.holder === actorDid) {
              expect(reply).toMatchObject({
                ok: true,
                renewed: true,
                lease: { id: m.lease.id, fence: m.lease.fence },
              });
            } else if (m.frozen !== null) {
              // Nobody new while frozen; the holder renews (above) and waiters keep their place.
              if (!m.queue.includes(actorDid)) m.queue.push(actorDid);
              expect(answer.status).toBe(409);
              expect(reply).toMatchObject({
                ok: false,
                reason: 'frozen',
                until: null,
                position: m.queue.indexOf(actorDid),
              });
              expect(reply.message).toContain(m.frozen);
            } else if (!m.lease && (keptFor === undefined || keptFor === actorDid)) {
              expect(reply).toMatchObject({
                ok: true,
                renewed: false,
                lease: { holder: actorDid },
              });
              const { id, fence } = reply.lease as { id: string; fence: number };
              expect(fence).toBeGreaterThan(lastFence);
              lastFence = fence;
              m.lease = { holder: actorDid, id, fence };
              m.queue = m.queue.filter((a) => a !== actorDid);
              m.reserved = false;
            } else {
              if (!m.queue.includes(actorDid)) m.queue.push(actorDid);
              const position = m.queue.indexOf(actorDid);
              expect(answer.status).toBe(409);
              expect(reply).toMatchObject({
                ok: false,
                reason: 'lease_held',
                holder: m.lease?.holder ?? keptFor,
                position,
              });
              if (!m.lease) expect(reply.reserved).toBe(true);
              const { waitMs } = reply.stampede as { waitMs: number };
              expect(Number.isInteger(waitMs) && waitMs >= 1 && waitMs <= 30_000).toBe(true);
              if (position === 0) expect(waitMs).toBeLessThanOrEqual(NEXT_IN_LINE_WAIT_MS);
            }
          }
          for (const [i, resource] of resources.entries()) {
            const status = await request(
              `${url}/api/v1/acp/coordination/lease?resource=${encodeURIComponent(resource)}`,
            );
            const { lease } = (await status.body.json()) as { lease: { id: string } | null };
            expect(lease?.id ?? null).toBe(models[i]!.lease?.id ?? null);
          }
        },
      ),
      { numRuns: 30 },
    );
    expect(steps).toBeGreaterThan(150);
  });
});
