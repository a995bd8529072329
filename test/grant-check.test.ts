import { describe, expect, it } from 'vitest';
import { outputValue } from '../src/action/io.js';
import { keepLease } from '../src/gate/keep.js';
import { createPlaneClient } from '../src/plane/client.js';
import { BrokenGrantError } from '../src/plane/grant.js';
import { realSleep, systemClock } from '../src/plane/time.js';
import { jobSteps, logText } from './support/in-process.js';
import {
  granted,
  isLease,
  isRelease,
  released,
  startScriptedPlane,
} from './support/scripted-plane.js';
import type { ScriptedPlane } from './support/scripted-plane.js';
import { R } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';
import { causeText } from '../src/errors.js';

/**
 * A hostile plane answers `ok: true` with a lease that is not ours: the gate
 * must not believe it. Each one fails main with the field named, gives the
 * lease back by (resource, own DID), and never says acquired=true.
 */

const SOMEONE = 'did:web:someone-else.example:agent';
let plane: ScriptedPlane | undefined;

closeAfterEach(() => [plane]);

const actorOf = (body: unknown) => (body as { actorDid: string }).actorDid;

describe('a grant is checked before it is believed', () => {
  it.each([
    ['another holder', () => ({ holder: SOMEONE }), 'lease.holder'],
    ['another resource', () => ({ resource: 'lock:deploy/staging' }), 'lease.resource'],
    ['an expiry of 1', () => ({ expiresAtMs: 1 }), 'lease.expiresAtMs'],
    ['an expiry long past', () => ({ expiresAtMs: Date.now() - 3_600_000 }), 'lease.expiresAtMs'],
    [
      'an expiry ten years ahead',
      () => ({ expiresAtMs: Date.now() + 10 * 365 * 86_400_000 }),
      'lease.expiresAtMs',
    ],
    [
      'a lease id with CR/LF and markup',
      () => ({ id: 'lease_1\r\n::set-output name=x::<script>alert(1)</script>' }),
      'lease.id',
    ],
    ['a lease id of 300 characters', () => ({ id: `lease_${'a'.repeat(294)}` }), 'lease.id'],
    ['a lease without an id', () => ({ id: undefined }), 'lease.id'],
  ])('refuses %s: not acquired, given back, the field named', async (_, extra, field) => {
    plane = await startScriptedPlane((req) =>
      isRelease(req)
        ? { body: released('lease_bad') }
        : { body: granted(actorOf(req.body), 'lease_bad', extra()) },
    );
    const { main, post } = await jobSteps({
      inputs: { 'api-url': plane.url, 'keep-alive': 'false', resource: R },
      env: { INTRAMEDIAL_KEY: 'k' },
    });
    expect(main.outputs.acquired).not.toBe('true');
    expect(main.outputs['lease-id']).toBeUndefined();
    expect(main.failed).toContain(field);
    expect(main.failed).toMatch(/not ours to believe.*It was given back/);
    expect(main.failed).not.toMatch(/[\r\n<>]/);
    expect(logText(main)).not.toContain('Acquired');
    const asks = plane.seen.filter(isLease);
    expect(asks).toHaveLength(1);
    // The release came at once, from main (before post), by the pair that asked.
    const releases = plane.seen.filter(isRelease);
    expect(releases.length).toBeGreaterThanOrEqual(1);
    expect(releases[0]!.body).toEqual({ resource: R, actorDid: actorOf(asks[0]!.body) });
    expect(post.failed).toBeUndefined();
  });

  it('believes a grant a few minutes off this clock (skew is information)', async () => {
    plane = await startScriptedPlane((req) =>
      isRelease(req)
        ? { body: released('lease_ok') }
        : { body: granted(actorOf(req.body), 'lease_ok', { expiresAtMs: Date.now() - 60_000 }) },
    );
    const { main } = await jobSteps({
      inputs: { 'api-url': plane.url, 'keep-alive': 'false', resource: R },
      env: { INTRAMEDIAL_KEY: 'k' },
    });
    expect(main.failed).toBeUndefined();
    expect(main.outputs).toMatchObject({ acquired: 'true', 'lease-id': 'lease_ok' });
  });

  it.each([
    ['behind', -600_000],
    ['ahead', 600_000],
  ])(
    'believes a grant from a plane whose own clock (its Date header) is 10 min %s this one',
    async (_, skewMs) => {
      plane = await startScriptedPlane((req) => {
        const planeNow = Date.now() + skewMs;
        const headers = { date: new Date(planeNow).toUTCString() };
        if (isRelease(req)) return { headers, body: released('lease_ok') };
        const lease = { expiresAtMs: planeNow + 1_500 };
        return { headers, body: granted(actorOf(req.body), 'lease_ok', lease) };
      });
      const { main } = await jobSteps({
        inputs: { 'api-url': plane.url, 'keep-alive': 'false', resource: R },
        env: { INTRAMEDIAL_KEY: 'k' },
      });
      expect(main.failed).toBeUndefined();
      expect(main.outputs).toMatchObject({ acquired: 'true', 'lease-id': 'lease_ok' });
    },
  );

  it('a renewal for another holder ends the keeper with the loss named, and gives it back', async () => {
    const ME = 'did:web:acme.example:agent:me';
    plane = await startScriptedPlane((req, i) => {
      if (isRelease(req)) return { body: released('lease_k') };
      return {
        body: granted(i === 0 ? ME : SOMEONE, 'lease_k', { expiresAtMs: Date.now() + 600 }),
      };
    });
    const client = createPlaneClient({ apiUrl: plane.url, requestTimeoutMs: 5_000 });
    const first = await client.lease({ resource: R, actorDid: ME });
    expect(first.kind).toBe('granted');
    if (first.kind !== 'granted') return;
    const status = await keepLease({
      client,
      resource: R,
      actorDid: ME,
      lease: first.lease,
      clock: systemClock,
      wallNow: Date.now,
      sleep: realSleep,
      maxLifetimeMs: 30_000,
    });
    await client.close();
    expect(status.ended?.why).toBe('lost');
    expect(status.lost).toMatchObject({ reason: 'broken_plane', gaveBack: true });
    expect(status.lost?.message).toContain('lease.holder');
    expect(status.renewals).toBe(0);
    expect(plane.seen.filter(isRelease).map((r) => r.body)).toEqual([
      { resource: R, actorDid: ME },
    ]);
  });

  it('the client throws a BrokenGrantError naming the field, and says when giving back failed', async () => {
    plane = await startScriptedPlane((req) =>
      isRelease(req) ? { status: 404 } : { body: granted(SOMEONE) },
    );
    const client = createPlaneClient({ apiUrl: plane.url });
    const error = await client
      .lease({ resource: R, actorDid: 'did:web:acme.example:agent:me' })
      .catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(BrokenGrantError);
    expect(error).toMatchObject({ field: 'lease.holder', gaveBack: false });
    expect(causeText(error)).toMatch(/Giving it back failed/);
  });
});

describe('output values', () => {
  it('are one line and bounded', () => {
    expect(outputValue('a\r\nb\u0000c')).toBe('a  b c');
    expect(outputValue('x'.repeat(5_000))).toHaveLength(1_024);
    expect(outputValue('lease_1')).toBe('lease_1');
  });
});
