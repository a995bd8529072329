import { describe, expect, it } from 'vitest';
import { LeaseRefusedError, waitForLease, type HeldEvent } from '../src/gate/wait.js';
import type { CallOptions, PlaneClient } from '../src/plane/client.js';
import { CancelledError } from '../src/plane/errors.js';
import type { LeaseAnswer, LeaseRequest } from '../src/plane/schema.js';
import { createPlaneClient } from '../src/plane/client.js';
import { fakeTime } from './support/fake-time.js';
import { granted, startScriptedPlane } from './support/scripted-plane.js';

const ME = 'did:web:acme.example:agent:me';
const lease = { id: 'lease_1', resource: 'r', holder: ME, expiresAtMs: 0 };
type Held = Extract<LeaseAnswer, { kind: 'held' }>;
const held = (holder: string, waitMs: number, more: Partial<Held> = {}): LeaseAnswer => ({
  kind: 'held',
  holder,
  waitMs,
  reserved: false,
  preferenceApplied: false,
  ...more,
});

/** A plane of just the two calls the loop uses, answering from a list. */
function scripted(answers: Array<LeaseAnswer | Error>) {
  const asked: LeaseRequest[] = [];
  const calls: Array<CallOptions | undefined> = [];
  const releases: LeaseRequest[] = [];
  const client: Pick<PlaneClient, 'lease' | 'release'> = {
    lease: async (req, call) => {
      asked.push(req);
      calls.push(call);
      const next = answers.shift();
      if (!next) throw new Error('asked more often than scripted');
      if (next instanceof Error) throw next;
      return next;
    },
    release: async (req) => {
      releases.push(req);
      return { released: true, releasedIds: ['lease_1'] };
    },
  };
  return { client, asked, calls, releases };
}

function options(client: Pick<PlaneClient, 'lease' | 'release'>, timeoutMs = 60_000) {
  const time = fakeTime();
  const events: HeldEvent[] = [];
  return {
    time,
    events,
    opts: {
      client,
      resource: 'r',
      actorDid: ME,
      timeoutMs,
      clock: time.clock,
      sleep: time.sleep,
      random: () => 0,
      onHeld: (event: HeldEvent) => void events.push(event),
    },
  };
}

describe('waitForLease', () => {
  it('takes a free lease at the first ask', async () => {
    const plane = scripted([{ kind: 'granted', lease }]);
    const { opts, time } = options(plane.client);
    const result = await waitForLease(opts);
    expect(result).toEqual({ outcome: 'granted', lease, waitedMs: 0, asks: 1 });
    expect(time.sleeps).toEqual([]);
    expect(plane.asked).toEqual([{ resource: 'r', actorDid: ME }]);
  });

  it('sleeps the plane-named waitMs between asks', async () => {
    const plane = scripted([held('a', 3_000), held('a', 1_200), { kind: 'granted', lease }]);
    const { opts, time } = options(plane.client);
    const result = await waitForLease(opts);
    expect(time.sleeps).toEqual([3_000, 1_200]);
    expect(result).toMatchObject({ outcome: 'granted', waitedMs: 4_200, asks: 3 });
  });

  it('adds at most a little jitter', async () => {
    const plane = scripted([held('a', 2_000), held('a', 10_000), { kind: 'granted', lease }]);
    const { opts, time } = options(plane.client);
    await waitForLease({ ...opts, random: () => 0.999 });
    expect(time.sleeps[0]).toBeGreaterThan(2_000);
    expect(time.sleeps[0]).toBeLessThanOrEqual(2_200);
    expect(time.sleeps[1]).toBeLessThanOrEqual(10_250);
  });

  it('never hammers a plane that names no back-off', async () => {
    const plane = scripted([held('a', 0), { kind: 'granted', lease }]);
    const { opts, time } = options(plane.client);
    await waitForLease(opts);
    expect(time.sleeps).toEqual([100]);
  });

  it('tells about a new holder only when it changes', async () => {
    const plane = scripted([
      held('a', 1_000),
      held('a', 1_000),
      held('b', 1_000),
      { kind: 'granted', lease },
    ]);
    const { opts, events } = options(plane.client);
    await waitForLease(opts);
    expect(events.map((e) => [e.holder, e.holderChanged, e.elapsedMs])).toEqual([
      ['a', true, 0],
      ['a', false, 1_000],
      ['b', true, 2_000],
    ]);
  });

  it('never sleeps past the deadline and asks once more there', async () => {
    const plane = scripted([held('a', 4_000), held('a', 4_000), held('a', 4_000)]);
    const { opts, time } = options(plane.client, 5_000);
    const result = await waitForLease(opts);
    expect(time.sleeps).toEqual([4_000, 1_000]);
    expect(result).toEqual({
      outcome: 'timeout',
      holder: 'a',
      reserved: false,
      waitedMs: 5_000,
      asks: 3,
    });
  });

  it('is granted at the last ask at the deadline', async () => {
    const plane = scripted([held('a', 60_000), { kind: 'granted', lease }]);
    const { opts, time } = options(plane.client, 5_000);
    const result = await waitForLease(opts);
    expect(time.sleeps).toEqual([5_000]);
    expect(result.outcome).toBe('granted');
  });

  it('asks exactly once with a zero timeout', async () => {
    const plane = scripted([held('a', 1_000)]);
    const { opts, time } = options(plane.client, 0);
    const result = await waitForLease(opts);
    expect(result).toEqual({
      outcome: 'timeout',
      holder: 'a',
      reserved: false,
      waitedMs: 0,
      asks: 1,
    });
    expect(time.sleeps).toEqual([]);
  });

  it('fails on any refusal other than lease_held', async () => {
    const plane = scripted([{ kind: 'refused', reason: 'actor_suspended', message: 'by ops' }]);
    const { opts } = options(plane.client);
    await expect(waitForLease(opts)).rejects.toThrow(
      new LeaseRefusedError({ reason: 'actor_suspended', detail: 'by ops' }),
    );
  });

  it('stops when aborted during the sleep, asking no more, and leaves the queue', async () => {
    const plane = scripted([held('a', 5_000)]);
    const { opts } = options(plane.client);
    const abort = new AbortController();
    const result = await waitForLease({
      ...opts,
      signal: abort.signal,
      sleep: async () => abort.abort(),
    });
    expect(result).toMatchObject({ outcome: 'cancelled', asks: 1 });
    expect(plane.asked).toHaveLength(1);
    expect(plane.releases).toEqual([{ resource: 'r', actorDid: ME }]);
  });

  it('sends nothing when aborted before the first ask', async () => {
    const plane = scripted([]);
    const { opts } = options(plane.client);
    const abort = new AbortController();
    abort.abort();
    const result = await waitForLease({ ...opts, signal: abort.signal });
    expect(result).toMatchObject({ outcome: 'cancelled', asks: 0 });
    expect([plane.asked, plane.releases]).toEqual([[], []]);
  });

  it('gives back a lease granted in the moment of the abort', async () => {
    const abort = new AbortController();
    const plane = scripted([]);
    const { opts } = options({
      ...plane.client,
      lease: async () => {
        abort.abort();
        return { kind: 'granted', lease };
      },
    });
    const result = await waitForLease({ ...opts, signal: abort.signal });
    expect(result.outcome).toBe('cancelled');
    expect(plane.releases).toEqual([{ resource: 'r', actorDid: ME }]);
  });

  it('releases after a request cut short by the abort, in case the plane granted it', async () => {
    const plane = scripted([new CancelledError()]);
    const { opts } = options(plane.client);
    const result = await waitForLease(opts);
    expect(result.outcome).toBe('cancelled');
    expect(plane.releases).toHaveLength(1);
  });

  it('asks once at once, waits its back-off, then holds: the first answer is never a held one', async () => {
    const plane = scripted([
      held('a', 4_000, { position: 2, etaMs: 360_000 }),
      held('a', 4_000, { position: 1, preferenceApplied: true }),
      { kind: 'granted', lease },
    ]);
    const { opts, time, events } = options(plane.client);
    // A plane that holds: the test's clock moves 8 s during the held ask.
    const holding = {
      ...plane.client,
      lease: async (req: LeaseRequest, call?: CallOptions) => {
        const answer = await plane.client.lease(req, call);
        if (call?.waitSeconds) await time.sleep(8_000);
        return answer;
      },
    };
    const result = await waitForLease({ ...opts, client: holding, maxHoldSeconds: 8 });
    expect(result.outcome).toBe('granted');
    expect(plane.calls.map((c) => c?.waitSeconds)).toEqual([undefined, 8, 8]);
    // The first answer was not held: its back-off is slept before the first held ask; the
    // held answer after it is followed at once (jitter only). The 8 s are the plane's holds.
    expect(time.sleeps).toEqual([4_000, 8_000, 0, 8_000]);
    expect(events[0]).toMatchObject({
      first: true,
      elapsedMs: 0,
      holder: 'a',
      position: 2,
      etaMs: 360_000,
      positionChanged: true,
    });
    expect(events[1]).toMatchObject({ first: false, position: 1, positionChanged: true });
  });

  it('sleeps the back-off after the first ask of a plane that cannot hold', async () => {
    const plane = scripted([held('a', 3_000), { kind: 'granted', lease }]);
    const { opts, time } = options(plane.client);
    await waitForLease({ ...opts, maxHoldSeconds: 0 });
    expect(plane.calls.map((c) => c?.waitSeconds)).toEqual([undefined, undefined]);
    expect(time.sleeps).toEqual([3_000]);
  });

  it('asks a plane that ignores Prefer once per named back-off, from the first answer on', async () => {
    // Issue #35 item 12: the plane's wait holds from the first refusal; a job sends one ask per waitMs.
    let asks = 0;
    const plane = await startScriptedPlane((req) => {
      if (!req.path.startsWith('/api/v1/acp/coordination/lease')) return { body: { ok: true } };
      asks += 1;
      if (asks < 5) {
        const body = { ok: false, reason: 'lease_held', holder: 'did:web:x:a', position: 0 };
        return { status: 409, body: { ...body, stampede: { waitMs: 2_000 } } };
      }
      return { body: granted(ME) };
    });
    const time = fakeTime();
    const client = createPlaneClient({ apiUrl: plane.url, clock: time.clock, sleep: time.sleep });
    const askedAt: number[] = [];
    try {
      const result = await waitForLease({
        client: {
          lease: (req, call) => {
            askedAt.push(time.clock.now());
            return client.lease(req, call);
          },
          release: (req, call) => client.release(req, call),
        },
        resource: 'lock:deploy/production',
        actorDid: ME,
        timeoutMs: 60_000,
        maxHoldSeconds: 8,
        clock: time.clock,
        sleep: time.sleep,
        random: () => 0,
      });
      expect(result).toMatchObject({ outcome: 'granted', asks: 5 });
      expect(askedAt).toEqual([1_000, 3_000, 5_000, 7_000, 9_000]);
      // It did ask to be held after the first ask; the plane ignored it.
      const prefer = plane.seen.map((r) => r.headers.prefer);
      expect(prefer).toEqual([undefined, 'wait=8', 'wait=8', 'wait=8', 'wait=8']);
    } finally {
      await client.close();
      await plane.close();
    }
  });

  it('follows a frozen answer the plane held at once, and waits out one it did not', async () => {
    const frozen = (preferenceApplied: boolean): LeaseAnswer => ({
      kind: 'frozen',
      message: 'frozen by an operator: incident',
      untilMs: undefined,
      waitMs: 5_000,
      position: 0,
      preferenceApplied,
    });
    const plane = scripted([
      frozen(false),
      frozen(true),
      frozen(false),
      { kind: 'granted', lease },
    ]);
    const { opts, time } = options(plane.client);
    const holding = {
      ...plane.client,
      lease: async (req: LeaseRequest, call?: CallOptions) => {
        const answer = await plane.client.lease(req, call);
        if (answer.kind === 'frozen' && answer.preferenceApplied) await time.sleep(8_000);
        return answer;
      },
    };
    const result = await waitForLease({ ...opts, client: holding, maxHoldSeconds: 8 });
    expect(result.outcome).toBe('granted');
    expect(time.sleeps).toEqual([5_000, 8_000, 0, 5_000]);
  });

  it('leaves the queue when the wait ends without the lease, so nothing stays reserved for it', async () => {
    const plane = scripted([held('a', 1_000)]);
    const { opts } = options(plane.client, 0);
    await waitForLease(opts);
    expect(plane.releases).toEqual([{ resource: 'r', actorDid: ME }]);
  });

  it('passes plane failures through', async () => {
    const plane = scripted([new Error('boom')]);
    const { opts } = options(plane.client);
    await expect(waitForLease(opts)).rejects.toThrow('boom');
  });
});
