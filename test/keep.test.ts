import { describe, expect, it } from 'vitest';
import { keepLease, type KeepOptions, type KeeperStatus } from '../src/gate/keep.js';
import { LeaseKernel } from '../src/kernel/rules/core.js';
import { KeyRefusedError, PlaneUnavailableError } from '../src/plane/errors.js';
import type { WatchAnswer } from '../src/plane/schema.js';
import { fakeTime } from './support/fake-time.js';
import { kernelClient } from './support/kernel-client.js';
import { R } from './support/names.js';

const ME = 'did:web:acme.example:agent:me';
const THEM = 'did:web:acme.example:agent:them';

function setup(ttlMs: number) {
  const time = fakeTime(1_000_000);
  const kernel = new LeaseKernel({ ttlMs, random: () => 0.5 });
  const first = kernel.lease(R, ME, time.clock.now());
  if (!first.ok) throw new Error('setup');
  const client = kernelClient(kernel, time.clock);
  const renewedAt: number[] = [];
  const releases: number[] = [];
  const base: KeepOptions = {
    client: {
      lease: async (req, call) => {
        renewedAt.push(time.clock.now());
        return client.lease(req, call);
      },
      release: async (req, call) => {
        releases.push(time.clock.now());
        return client.release(req, call);
      },
    },
    resource: R,
    actorDid: ME,
    lease: { ...first.lease, ttlMs },
    sentAtMs: time.clock.now(),
    clock: time.clock,
    wallNow: time.clock.now,
    sleep: time.sleep,
    maxLifetimeMs: 60_000,
  };
  return { time, kernel, base, renewedAt, releases };
}

/** The keeper's sleep, which once 2 s have passed revokes its lease (`reason`), then runs `then`. */
function revokingSleep(
  { kernel, time }: ReturnType<typeof setup>,
  reason: string,
  then = () => {},
): KeepOptions['sleep'] {
  return async (ms, signal) => {
    await time.sleep(ms, signal);
    if (time.clock.now() > 1_002_000 && kernel.status(R, time.clock.now())?.holder === ME) {
      kernel.revoke(R, reason, time.clock.now());
      then();
    }
  };
}

/** The keeper with a watch whose n-th call (n from 1) answers `answer(n)`; the leases it watched. */
async function keepWatching(base: KeepOptions, answer: (n: number) => WatchAnswer) {
  const watched: string[] = [];
  const status = await keepLease({
    ...base,
    watch: async (leaseId) => {
      watched.push(leaseId);
      return answer(watched.length);
    },
  });
  return { status, watched };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

/**
 * The hosted plane's contract over the kernel core: no ttlMs, the expiry and the Date header
 * (whole seconds) on a plane clock `skewMs` off the runner's, answers `latencyMs` late.
 */
function hostedLike(
  client: KeepOptions['client'],
  time: ReturnType<typeof fakeTime>,
  skewMs: number,
  latencyMs: number,
  dated = true,
): KeepOptions['client'] {
  return {
    ...client,
    lease: async (req, call) => {
      const answer = await client.lease(req, call);
      const planeNow = time.clock.now() + skewMs;
      await time.sleep(latencyMs);
      if (answer.kind !== 'granted') return answer;
      const lease = { ...answer.lease, expiresAtMs: answer.lease.expiresAtMs + skewMs };
      delete lease.ttlMs;
      const planeDateMs = Math.floor(planeNow / 1_000) * 1_000;
      return { ...answer, lease, ...(dated ? { planeDateMs } : {}) };
    },
  };
}

describe('keepLease', () => {
  it.each([
    [1_500, 500],
    [30_000, 10_000],
  ])('renews a %i ms lease about every %i ms, and it never lapses', async (ttl, every) => {
    const { base, renewedAt, kernel, time } = setup(ttl);
    const status = await keepLease(base);
    expect(status.ended?.why).toBe('lifetime');
    expect(status.lost).toBeUndefined();
    expect(status.renewals).toBe(renewedAt.length);
    expect(renewedAt.length).toBeGreaterThanOrEqual(60_000 / every - 1);
    for (const gap of gaps(renewedAt)) expect(Math.abs(gap - every)).toBeLessThanOrEqual(1);
    expect(kernel.status(R, time.clock.now())?.holder).toBe(ME);
    expect(kernel.drainEvents().map((e) => e.kind)).toEqual(['grant']);
  });

  it.each([
    ['10 min behind', -600_000],
    ['10 min ahead', 600_000],
  ])(
    'paces from the told lease time and the send time, its wall clock %s changing nothing',
    async (_, skewMs) => {
      const { base, renewedAt, time } = setup(3_000);
      // A renewal takes 200 ms to answer: the lease time runs from the send, not the answer.
      const slow: KeepOptions['client'] = {
        ...base.client,
        lease: async (req, call) => {
          const answer = await base.client.lease(req, call);
          await time.sleep(200);
          return answer;
        },
      };
      const status = await keepLease({
        ...base,
        client: slow,
        wallNow: () => time.clock.now() + skewMs,
        maxLifetimeMs: 30_000,
      });
      expect(status.lost).toBeUndefined();
      expect(status.ended?.why).toBe('lifetime');
      // Sent at 1 s, then every 200 ms + (3 000 - 200) / 3 ms: a third of what is left.
      expect(renewedAt[0]! - 1_000_000).toBe(1_000);
      for (const gap of gaps(renewedAt))
        expect(Math.abs(gap - (200 + 2_800 / 3))).toBeLessThanOrEqual(1);
      expect(renewedAt.length).toBeGreaterThanOrEqual(25);
    },
  );

  it('renews at once a lease whose send time it does not know', async () => {
    const { base, renewedAt } = setup(30_000);
    const unknownSend = { ...base, maxLifetimeMs: 25_000 };
    delete unknownSend.sentAtMs;
    const status = await keepLease(unknownSend);
    expect(status.lost).toBeUndefined();
    expect(renewedAt.map((t) => t - 1_000_000)).toEqual([0, 10_000, 20_000]);
  });

  it.each([
    ['10 min behind', -600_000],
    ['10 min ahead', 600_000],
  ])(
    'paces a plane that tells no ttlMs by expiresAtMs against its Date header (plane clock %s): 1.5 s leases never lapse',
    async (_, skewMs) => {
      const { base, renewedAt, kernel, time } = setup(1_500);
      const status = await keepLease({
        ...base,
        client: hostedLike(base.client, time, skewMs, 200),
        maxLifetimeMs: 20_000,
      });
      expect(status.lost).toBeUndefined();
      expect(status.note).toBeUndefined();
      expect(status.ended?.why).toBe('lifetime');
      // Never later than the plane's word allows: well within 1.5 s of each send.
      for (const gap of gaps(renewedAt)) expect(gap).toBeLessThanOrEqual(1_000);
      expect(renewedAt.length).toBeGreaterThanOrEqual(20);
      expect(kernel.status(R, time.clock.now())?.holder).toBe(ME);
      expect(kernel.drainEvents().map((e) => e.kind)).toEqual(['grant']);
    },
  );

  it('reads a lease from the Date header less its 1 s uncertainty, never above the documented 30 s', async () => {
    const { base, renewedAt, time } = setup(30_000);
    const long = setup(120_000);
    for (const [run, times] of [
      [base, renewedAt],
      [long.base, long.renewedAt],
    ] as const) {
      const handed = { ...run.lease };
      delete handed.ttlMs;
      const status = await keepLease({
        ...run,
        lease: handed,
        client: hostedLike(run.client, run === base ? time : long.time, 0, 0),
        maxLifetimeMs: 60_000,
      });
      expect(status.lost).toBeUndefined();
      // Renewed at once (no word on the handed-in grant), then at a third of what the Date
      // header allows (at most 30 s): a 120 s lease is read as the documented 30 s.
      expect(times[0]).toBe(1_000_000);
      for (const gap of gaps(times)) expect(gap).toBeLessThanOrEqual(10_000);
      expect(gaps(times).length).toBeGreaterThanOrEqual(5);
    }
  });

  it('notices a lease taken away on such a plane within one lease time, and stops renewing', async () => {
    const { base, kernel, time, renewedAt } = setup(1_500);
    let takenAt: number | undefined;
    const status = await keepLease({
      ...base,
      client: hostedLike(base.client, time, -600_000, 100),
      sleep: async (ms, signal) => {
        await time.sleep(ms, signal);
        if (takenAt === undefined && time.clock.now() > 1_005_000) {
          takenAt = time.clock.now();
          kernel.revoke(R, 'ops', takenAt);
          kernel.lease(R, THEM, takenAt);
        }
      },
    });
    expect(status.ended?.why).toBe('lost');
    expect(status.lost?.atMs).toBeDefined();
    expect(status.lost!.atMs - takenAt!).toBeLessThanOrEqual(1_500);
    expect(renewedAt.filter((t) => t > status.lost!.atMs)).toEqual([]);
  });

  it('without ttlMs or a Date header, paces by the most conservative reading and says so once', async () => {
    const { base, renewedAt, kernel, time } = setup(1_500);
    const changes: KeeperStatus[] = [];
    const status = await keepLease({
      ...base,
      client: hostedLike(base.client, time, 0, 100, false),
      maxLifetimeMs: 10_000,
      onChange: (s) => changes.push(structuredClone(s)),
    });
    expect(status.lost).toBeUndefined();
    expect(status.note).toMatch(/no ttlMs and no readable Date header.*documented 30 s/);
    // Once: every later record carries the same words, none other.
    expect(new Set(changes.map((c) => c.note).filter(Boolean)).size).toBe(1);
    for (const gap of gaps(renewedAt)) expect(gap).toBeLessThanOrEqual(1_000);
    expect(kernel.drainEvents().map((e) => e.kind)).toEqual(['grant']);
  });

  it('renews and only renews: a new lease id means ours ended; it is given back and reported', async () => {
    const { base, time, kernel, releases } = setup(1_500);
    let calls = 0;
    const outage: KeepOptions['client'] = {
      ...base.client,
      lease: async (req, call) => {
        calls += 1;
        // The plane is unreachable for the 2nd to 4th renewal: about 3 s, twice the lease.
        if (calls >= 2 && calls <= 4) {
          await time.sleep(1_000);
          throw new PlaneUnavailableError('down', { call: 'call' });
        }
        return base.client.lease(req, call);
      },
    };
    const status = await keepLease({ ...base, client: outage, maxLifetimeMs: 8_000 });
    expect(status.ended?.why).toBe('lost');
    expect(status.lost).toMatchObject({ reason: 'replaced', gaveBack: true });
    expect(status.lost?.newLeaseId).not.toBe(base.lease.id);
    expect(status.leaseId).toBe(base.lease.id);
    expect(status.failures).toBe(3);
    expect(releases).toHaveLength(1);
    // Nobody holds it now: the keeper took nothing for itself.
    expect(kernel.status(R, time.clock.now())).toBeNull();
  });

  it('reports a revocation with the operator message and stops (a revoke is not undone)', async () => {
    const kept = setup(1_500);
    const { base, kernel, time, renewedAt } = kept;
    const status = await keepLease({ ...base, sleep: revokingSleep(kept, 'incident 42: freeze') });
    expect(status.ended?.why).toBe('lost');
    expect(['revoked', 'replaced']).toContain(status.lost?.reason);
    if (status.lost?.reason === 'revoked') expect(status.lost.message).toContain('incident 42');
    expect(renewedAt.filter((t) => t > status.lost!.atMs)).toEqual([]);
    expect(kernel.status(R, time.clock.now())?.holder).not.toBe(ME);
  });

  it('exits without renewing once nobody wants the lease kept (status file gone)', async () => {
    const { base, time, renewedAt } = setup(30_000);
    const status = await keepLease({ ...base, stillWanted: () => time.clock.now() < 1_005_000 });
    expect(status.ended?.why).toBe('not-wanted');
    expect(renewedAt.every((t) => t < 1_005_000)).toBe(true);
  });

  it('reports a loss naming the new holder, and stops renewing', async () => {
    const kept = setup(1_500);
    const { base, kernel, time, renewedAt } = kept;
    const changes: KeeperStatus[] = [];
    const status = await keepLease({
      ...base,
      sleep: revokingSleep(kept, 'ops', () => kernel.lease(R, THEM, time.clock.now())),
      onChange: (s) => changes.push(structuredClone(s)),
    });
    // Revoke is final: the revoked holder is refused with "revoked", not told to wait.
    expect(status.lost).toMatchObject({ reason: 'revoked' });
    expect(status.ended?.why).toBe('lost');
    const asksAfterLoss = renewedAt.filter((t) => t > status.lost!.atMs);
    expect(asksAfterLoss).toEqual([]);
    expect(changes.at(-1)?.ended?.why).toBe('lost');
  });

  it('ends when the process that started the job is gone', async () => {
    const { base, time } = setup(30_000);
    const status = await keepLease({ ...base, parentAlive: () => time.clock.now() < 1_005_000 });
    expect(status.ended?.why).toBe('parent-gone');
    expect(time.clock.now() - 1_000_000).toBeLessThanOrEqual(7_000);
  });

  it('ends at once when stopped', async () => {
    const { base } = setup(30_000);
    const abort = new AbortController();
    abort.abort();
    const status = await keepLease({ ...base, signal: abort.signal });
    expect(status.ended?.why).toBe('stopped');
    expect(status.renewals).toBe(0);
  });

  it('stops on a refused key instead of retrying forever', async () => {
    const { base } = setup(1_500);
    const status = await keepLease({
      ...base,
      client: {
        ...base.client,
        lease: async () => {
          throw new KeyRefusedError('refused', { call: 'call', status: 401 });
        },
      },
    });
    expect(status.ended?.why).toBe('key-refused');
    expect(status.lastError).toBe('refused');
  });

  it('stops renewing the moment its watch hears the lease ended, with the plane’s time, reason and new holder', async () => {
    const { base, renewedAt, releases, time } = setup(30_000);
    const { status, watched } = await keepWatching(base, () => ({
      kind: 'ended',
      reason: 'revoked',
      endedAtMs: 1_000_123,
      message: 'incident 42',
      holder: THEM,
    }));
    expect(watched).toEqual([base.lease.id]);
    expect(status.ended?.why).toBe('lost');
    expect(status.lost).toEqual({
      atMs: status.lost?.atMs,
      endedAtMs: 1_000_123,
      reason: 'revoked',
      message: 'incident 42',
      holder: THEM,
    });
    // Learned before the first renewal was due (a third of the lease), and nothing was released.
    expect(renewedAt).toEqual([]);
    expect(releases).toEqual([]);
    expect(time.clock.now() - 1_000_000).toBeLessThan(10_000);
  });

  it('renews as before against a plane without the watch, asking it once', async () => {
    const { base, renewedAt } = setup(30_000);
    const { status, watched } = await keepWatching(base, () => ({ kind: 'unsupported' }));
    expect(watched.length).toBe(1);
    expect(status.ended?.why).toBe('lifetime');
    expect(status.lost).toBeUndefined();
    expect(renewedAt.length).toBeGreaterThanOrEqual(5);
  });

  it('watches again after a failed or an unheld watch, never in a tight loop', async () => {
    const { base, renewedAt } = setup(30_000);
    const { status, watched } = await keepWatching(base, (n) => {
      if (n % 2) throw new PlaneUnavailableError('down', { call: 'call' });
      return { kind: 'held' };
    });
    expect(status.ended?.why).toBe('lifetime');
    expect(renewedAt.length).toBeGreaterThanOrEqual(5);
    // One a second at most over the keeper's 60 s.
    expect(watched.length).toBeGreaterThan(1);
    expect(watched.length).toBeLessThanOrEqual(61);
  });
});
