import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LeaseKernel,
  MAX_RESERVATION_MS,
  NEXT_IN_LINE_WAIT_MS,
  type KernelLease,
} from '../src/kernel/rules/core.js';

/**
 * The kernel core against a small reference model of who holds what, over
 * random interleavings of lease, release, revoke and clock steps.
 */

const AGENTS = ['did:web:a', 'did:web:b', 'did:web:c', 'did:web:d'];
const RESOURCES = ['lock:r1', 'lock:r2'];
const TTL = 1_000;
const LOCK_DELAY = 700;

type Op =
  | { op: 'lease' | 'release'; agent: number; resource: number }
  | { op: 'revoke'; resource: number }
  | { op: 'tick'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('lease' as const),
      agent: fc.nat(3),
      resource: fc.nat(1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('release' as const),
      agent: fc.nat(3),
      resource: fc.nat(1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('revoke' as const), resource: fc.nat(1) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('tick' as const),
      ms: fc.integer({ min: 1, max: 1_500 }),
    }),
  },
);

interface ModelLease {
  holder: string;
  id: string;
  fence: number;
  expiresAtMs: number;
}

let operations = 0;

describe('the kernel core against a reference model', () => {
  it('keeps every invariant over random interleavings', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 120, size: 'max' }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (ops, seed) => {
          let rnd = seed;
          const kernel = new LeaseKernel({
            ttlMs: TTL,
            lockDelayMs: LOCK_DELAY,
            random: () => (rnd = (rnd * 9301 + 0.49297) % 1),
          });
          const model = new Map<string, ModelLease>();
          /** "resource agent" → until when a revoked agent is refused there. */
          const marks = new Map<string, number>();
          /** resource → the revoked holder that has not given it back, and until when it is kept. */
          const delays = new Map<string, { holder: string; until: number }>();
          const delayed = (resource: string) => {
            const delay = delays.get(resource);
            return delay && delay.until > now ? delay : undefined;
          };
          let now = 10_000;
          let lastFence = 0;
          const live = (resource: string) => {
            const lease = model.get(resource);
            return lease && lease.expiresAtMs > now ? lease : undefined;
          };
          for (const step of ops) {
            operations += 1;
            if (step.op === 'tick') {
              now += step.ms;
              continue;
            }
            const resource = RESOURCES[step.resource]!;
            const before = live(resource);
            if (step.op === 'revoke') {
              const ended = kernel.revoke(resource, 'test', now);
              expect(ended?.id).toBe(before?.id);
              if (before) {
                marks.set(`${resource} ${before.holder}`, now + TTL);
                delays.set(resource, { holder: before.holder, until: now + LOCK_DELAY });
              }
              model.delete(resource);
            } else if (step.op === 'release') {
              const agent = AGENTS[step.agent]!;
              const reply = kernel.release(resource, agent, now);
              // The revoked holder gives the resource back: the lock-delay ends at once.
              if (delayed(resource)?.holder === agent) delays.delete(resource);
              if (before?.holder === agent) {
                expect(reply).toEqual({ ok: true, released: true, releasedIds: [before.id] });
                model.delete(resource);
              } else {
                expect(reply).toEqual({ ok: true, released: false, releasedIds: [] });
              }
            } else {
              const agent = AGENTS[step.agent]!;
              const reply = kernel.lease(resource, agent, now);
              const mark = marks.get(`${resource} ${agent}`);
              if (mark !== undefined && mark > now) {
                // Revoke is final: refused while it keeps asking, with the operator's reason.
                expect(reply).toEqual({
                  ok: false,
                  reason: 'revoked',
                  holder: before?.holder ?? agent,
                  message: 'test',
                });
                marks.set(`${resource} ${agent}`, now + TTL);
                continue;
              }
              if (reply.ok) {
                const lease: KernelLease = reply.lease;
                // At most one unexpired holder: a grant only when free or already ours.
                expect(before === undefined || before.holder === agent).toBe(true);
                // Never another agent's while the revoked holder has not given it back.
                if (!before) expect(delayed(resource)).toBeUndefined();
                expect(lease.expiresAtMs).toBe(now + TTL);
                if (before) {
                  expect(reply.renewed).toBe(true);
                  expect([lease.id, lease.fence]).toEqual([before.id, before.fence]);
                } else {
                  expect(lease.fence).toBeGreaterThan(lastFence);
                  lastFence = lease.fence;
                }
                model.set(resource, {
                  holder: agent,
                  id: lease.id,
                  fence: lease.fence,
                  expiresAtMs: lease.expiresAtMs,
                });
              } else {
                if (reply.reason !== 'lease_held') throw new Error(`unexpected ${reply.reason}`);
                expect(before?.holder).not.toBe(agent);
                const delay = before ? undefined : delayed(resource);
                if (before) expect(reply.holder).toBe(before.holder);
                // In its lock-delay: still the revoked holder's, not a reservation.
                else if (delay)
                  expect([reply.holder, reply.reserved]).toEqual([delay.holder, undefined]);
                // Free but kept for the next in line: said so, and never in the asker's name.
                else expect(reply).toMatchObject({ reserved: true });
                if (!before) expect(reply.holder).not.toBe(agent);
                const { waitMs } = reply.stampede;
                expect(waitMs).toBeGreaterThanOrEqual(1);
                expect(Number.isInteger(waitMs)).toBe(true);
                // Never past the lease's end; the next in line is told a short wait.
                const bound = before
                  ? before.expiresAtMs - now
                  : delay
                    ? delay.until - now
                    : MAX_RESERVATION_MS;
                expect(waitMs).toBeLessThanOrEqual(Math.max(1, bound));
                if (reply.position === 0) expect(waitMs).toBeLessThanOrEqual(NEXT_IN_LINE_WAIT_MS);
              }
            }
            for (const r of RESOURCES) {
              expect(kernel.status(r, now)?.id).toBe(live(r)?.id);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(operations).toBeGreaterThan(10_000);
  });

  it('serves agents that ask as told in the order they first asked (unless the next in line sleeps past its short reservation), and starves none', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            arrive: fc.integer({ min: 0, max: 5_000 }),
            hold: fc.integer({ min: 1, max: 3_000 }),
          }),
          {
            minLength: 2,
            maxLength: 8,
          },
        ),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (agents, r) => {
          const kernel = new LeaseKernel({ ttlMs: 30_000, random: () => r });
          // Discrete events: [time, agent, kind], earliest first.
          const events: Array<[number, number, 'ask' | 'release']> = agents.map((a, i) => [
            a.arrive,
            i,
            'ask',
          ]);
          const firstAsk = new Map<number, number>();
          const grants: number[] = [];
          let freedAt = -Infinity;
          let guard = 0;
          while (events.length) {
            events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
            const [now, i, kind] = events.shift()!;
            guard += 1;
            expect(guard).toBeLessThan(10_000);
            const did = `did:web:agent${i}`;
            if (kind === 'release') {
              kernel.release('lock:r', did, now);
              freedAt = now;
              continue;
            }
            if (!firstAsk.has(i)) firstAsk.set(i, now);
            const reply = kernel.lease('lock:r', did, now);
            if (reply.ok) {
              const waiting = [...firstAsk.keys()].filter((a) => !grants.includes(a));
              const first = waiting.sort((x, y) => firstAsk.get(x)! - firstAsk.get(y)! || x - y)[0];
              // Out of order only once the freed resource's reservation is over.
              if (first !== i) expect(now).toBeGreaterThanOrEqual(freedAt + MAX_RESERVATION_MS);
              grants.push(i);
              events.push([now + agents[i]!.hold, i, 'release']);
            } else {
              if (reply.reason !== 'lease_held') throw new Error(`unexpected ${reply.reason}`);
              events.push([now + reply.stampede.waitMs, i, 'ask']);
            }
          }
          expect(new Set(grants).size).toBe(agents.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('after a revoke, grants another agent only once the revoked holder gives back', () => {
    const kernel = new LeaseKernel({ ttlMs: 30_000, lockDelayMs: 12_000, random: () => 0.5 });
    expect(kernel.lease('r', 'did:web:a', 0).ok).toBe(true);
    expect(kernel.revoke('r', 'stop', 1_000)?.holder).toBe('did:web:a');
    // Still the revoked holder's: the waiter is told who, and to ask again soon.
    expect(kernel.lease('r', 'did:web:b', 1_100)).toMatchObject({
      ok: false,
      reason: 'lease_held',
      holder: 'did:web:a',
      stampede: { waitMs: NEXT_IN_LINE_WAIT_MS },
    });
    expect(kernel.lease('r', 'did:web:b', 5_000).ok).toBe(false);
    // Its command tree exited; it gives back, and the next in line is served at once.
    expect(kernel.release('r', 'did:web:a', 5_200)).toEqual({
      ok: true,
      released: false,
      releasedIds: [],
    });
    expect(kernel.lease('r', 'did:web:c', 5_210)).toMatchObject({ reserved: true });
    expect(kernel.lease('r', 'did:web:b', 5_300)).toMatchObject({ ok: true });
  });

  it('ends the lock-delay on its own when the revoked holder never gives back', () => {
    const kernel = new LeaseKernel({ ttlMs: 30_000, lockDelayMs: 12_000, random: () => 0.5 });
    expect(kernel.lease('r', 'did:web:a', 0).ok).toBe(true);
    kernel.revoke('r', 'stop', 1_000);
    // The last wait is cut to the lock-delay's end, so a waiter asks exactly then.
    expect(kernel.lease('r', 'did:web:b', 12_700)).toMatchObject({ stampede: { waitMs: 300 } });
    expect(kernel.lease('r', 'did:web:b', 12_999).ok).toBe(false);
    expect(kernel.lease('r', 'did:web:b', 13_000)).toMatchObject({ ok: true });
    // The revoked agent is still refused, whoever holds it now.
    expect(kernel.lease('r', 'did:web:a', 13_100)).toMatchObject({ reason: 'revoked' });
  });

  it('grants at once after a revoke with no lock-delay, and the default is a renewal interval plus grace', () => {
    const kernel = new LeaseKernel({ ttlMs: 30_000, lockDelayMs: 0 });
    kernel.lease('r', 'did:web:a', 0);
    kernel.revoke('r', 'stop', 1_000);
    expect(kernel.lease('r', 'did:web:b', 1_001).ok).toBe(true);
    expect(new LeaseKernel({ ttlMs: 30_000 }).table.lockDelayMs).toBe(12_000);
  });

  it('lets a waiter that stops asking lose its place', () => {
    const kernel = new LeaseKernel({ ttlMs: 1_000, random: () => 0.5 });
    expect(kernel.lease('r', 'did:web:a', 0).ok).toBe(true);
    expect(kernel.lease('r', 'did:web:quitter', 10).ok).toBe(false);
    kernel.release('r', 'did:web:a', 100);
    // The quitter never comes back; after its wait and the grace, the resource is free for others.
    expect(kernel.lease('r', 'did:web:b', 150).ok).toBe(false);
    expect(kernel.lease('r', 'did:web:b', 3_000).ok).toBe(true);
  });

  it('lapses an unrenewed lease and records its changes of holder', () => {
    const kernel = new LeaseKernel({ ttlMs: 1_000 });
    expect(kernel.lease('r', 'did:web:a', 0).ok).toBe(true);
    expect(kernel.lease('r', 'did:web:a', 500).ok).toBe(true);
    expect(kernel.nextExpiry()).toBe(1_500);
    kernel.reclaim(1_500);
    expect(kernel.status('r', 1_500)).toBeNull();
    expect(kernel.drainEvents().map((e) => [e.kind, e.expiresAtMs])).toEqual([
      ['grant', 1_000],
      ['lapse', undefined],
    ]);
  });
});
