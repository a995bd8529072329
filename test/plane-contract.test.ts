import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/http/client.js';
import { waitForLease } from '../src/gate/wait.js';
import { createPlaneClient } from '../src/plane/client.js';
import { ContractError, PlaneUnavailableError } from '../src/plane/errors.js';
import { realSleep, systemClock } from '../src/plane/time.js';
import { granted, held, released, startScriptedPlane } from './support/scripted-plane.js';
import type { ScriptedPlane, Script } from './support/scripted-plane.js';
import { causeText } from '../src/errors.js';
import { startProxy } from './support/proxy.js';

/** interfaces.md answers against the scripted plane on 127.0.0.1:0. */

const ME = 'did:web:acme.example:agent:me';
const NEXT = 'did:web:acme.example:agent:next';
const REQ = { resource: 'lock:deploy/production', actorDid: ME };
const fast = { baseMs: 1, capMs: 2, maxAttempts: 5 };
let plane: ScriptedPlane | undefined;
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await plane?.close();
  plane = undefined;
  for (const close of closers.splice(0)) await close();
});

async function clientFor(script: Script, env: NodeJS.ProcessEnv = {}) {
  plane = await startScriptedPlane(script);
  const client = createPlaneClient({
    apiUrl: plane.url,
    retry: fast,
    env,
    requestTimeoutMs: 5_000,
  });
  closers.push(() => client.close());
  return client;
}

/** waitForLease with the real clock, no jitter and 3 s holds; each of its sleeps recorded. */
async function waitRecorded(client: Parameters<typeof waitForLease>[0]['client']) {
  const sleeps: number[] = [];
  const result = await waitForLease({
    client,
    ...REQ,
    timeoutMs: 30_000,
    clock: systemClock,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      await realSleep(ms, signal);
    },
    random: () => 0,
    maxHoldSeconds: 3,
  });
  return { result, sleeps };
}

describe('the plane client and interfaces.md', () => {
  it('reads a reservation as held for the next in line', async () => {
    const client = await clientFor(() => ({
      status: 409,
      body: { ...held(NEXT, 800), reserved: true, position: 2 },
    }));
    expect(await client.lease(REQ)).toMatchObject({
      kind: 'held',
      holder: NEXT,
      reserved: true,
      waitMs: 800,
    });
  });

  it('treats revoked as final, with the operator message, and the wait loop stops', async () => {
    const client = await clientFor(() => ({
      status: 409,
      body: { ok: false, reason: 'revoked', holder: ME, message: 'incident 7: freeze' },
    }));
    await expect(
      waitForLease({
        client,
        ...REQ,
        timeoutMs: 60_000,
        clock: systemClock,
        sleep: realSleep,
        random: Math.random,
      }),
    ).rejects.toThrow(/revoked .*incident 7: freeze/);
    expect(plane!.seen).toHaveLength(1);
  });

  it('retries 503 store_unavailable as transient', async () => {
    const client = await clientFor((_, i) =>
      i < 2
        ? { status: 503, body: { ok: false, reason: 'store_unavailable', message: 'disk full' } }
        : { body: granted(ME) },
    );
    expect(await client.lease(REQ)).toMatchObject({ kind: 'granted' });
    expect(plane!.seen).toHaveLength(3);
  });

  it('names the store fault when the budget runs out', async () => {
    const client = await clientFor(() => ({
      status: 503,
      body: { ok: false, reason: 'store_unavailable', message: 'disk full' },
    }));
    const error = await client
      .lease(REQ, { retryUntilMs: systemClock.now() + 50 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlaneUnavailableError);
    expect(causeText(error)).toContain('disk full');
  });

  it.each([
    ['a holder DID with a newline', { ...held('did:web:x\n::add-mask::y', 10) }, 'holder'],
    ['a holder that is not a DID', { ...held('../../etc', 10) }, 'holder'],
    [
      'an expiry outside the Date range',
      granted(ME, 'l', { expiresAtMs: 9e15 }),
      'lease.expiresAtMs',
    ],
    ['a negative fence', granted(ME, 'l', { fence: -1 }), 'lease.fence'],
    ['a back-off of a year', held(NEXT, 365 * 86_400_000), 'stampede.waitMs'],
  ])('refuses %s, naming the field', async (_, body, field) => {
    const client = await clientFor(() => ({ body }));
    const error = await client.lease(REQ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect(causeText(error)).toContain(field);
  });

  it('sends Prefer: wait=N and asks again at once when the plane held the request', async () => {
    const client = await clientFor(async (req, i) => {
      if (req.path.endsWith('/release')) return { body: released() };
      if (i === 0) return { status: 409, body: held(NEXT, 1_000) };
      if (i === 1) {
        await realSleep(600);
        return {
          status: 409,
          body: held(NEXT, 5_000),
          headers: { 'preference-applied': 'wait=1' },
        };
      }
      return { body: granted(ME) };
    });
    const { result, sleeps } = await waitRecorded(client);
    expect(result.outcome).toBe('granted');
    // The first ask is answered at once (the first notice must not wait); the next is held.
    expect(plane!.seen.map((r) => r.headers.prefer)).toEqual([undefined, 'wait=3', 'wait=3']);
    // The first answer was not held: its 1 s back-off. After the held one, not the named
    // 5 s back-off: the plane already held the request (no wall clock needed).
    expect(sleeps[0]).toBe(1_000);
    expect(sleeps.slice(1).filter((ms) => ms >= 1_000)).toEqual([]);
  });

  it('falls back to waitMs against a plane that ignores Prefer', async () => {
    const client = await clientFor((_, i) =>
      i <= 1 ? { status: 409, body: held(NEXT, 300) } : { body: granted(ME) },
    );
    const { result, sleeps } = await waitRecorded(client);
    expect(result.outcome).toBe('granted');
    // Neither answer was held: the named back-off after each, the first one's included.
    expect(sleeps).toEqual([300, 300]);
    expect(plane!.seen.map((r) => r.headers.prefer)).toEqual([undefined, 'wait=3', 'wait=3']);
  });

  it('stops a held request soon after cancel and releases what may have been granted', async () => {
    const client = await clientFor(async (req) => {
      if (req.path.endsWith('/release')) return { body: released('lease_late') };
      await realSleep(20_000);
      return { body: granted(ME, 'lease_late') };
    });
    const cancel = new AbortController();
    const waiting = waitForLease({
      client,
      ...REQ,
      timeoutMs: 30_000,
      clock: systemClock,
      sleep: realSleep,
      random: Math.random,
      maxHoldSeconds: 3,
      signal: cancel.signal,
    });
    // Cancelled once the plane holds the request (the event), not after a guessed sleep.
    while (plane!.seen.length === 0) await realSleep(10);
    const cancelledAt = Date.now();
    cancel.abort();
    const result = await waiting;
    expect(result.outcome).toBe('cancelled');
    // The 1 s target is the bench's; this bound, from the cancel, only has to tell it apart
    // from waiting out the plane's 20 s hold, with room for two busy cores.
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);
    expect(plane!.seen.some((r) => r.path.endsWith('/release'))).toBe(true);
  });

  // Node's proxy support asks for an http: plane in absolute form (as curl does); an https:
  // one through a CONNECT tunnel (test/http-transport.test.ts).
  it('goes through the proxy named by HTTP_PROXY', async () => {
    const proxy = await startProxy();
    closers.push(() => proxy.close());
    const proxyUrl = proxy.url;
    plane = await startScriptedPlane(() => ({ body: granted(ME) }));
    const http = createHttpClient({
      env: { HTTP_PROXY: proxyUrl, NO_PROXY: '' },
      proxyLoopback: true,
    });
    closers.push(() => http.close());
    const client = createPlaneClient({ apiUrl: plane.url, retry: fast, http });
    expect(await client.lease(REQ)).toMatchObject({ kind: 'granted' });
    expect(proxy.asked.map((a) => a.line)).toEqual([
      `POST ${plane.url}/api/v1/acp/coordination/lease`,
    ]);
  });
});
