import { describe, expect, it } from 'vitest';
import { createPlaneClient, type PlaneClientOptions } from '../src/plane/client.js';
import {
  CancelledError,
  ContractError,
  KeyRefusedError,
  PlaneUnavailableError,
  RequestRejectedError,
} from '../src/plane/errors.js';
import { fakeTime } from './support/fake-time.js';
import { granted, held, released, startScriptedPlane } from './support/scripted-plane.js';
import type { Reply, ScriptedPlane } from './support/scripted-plane.js';
import { closeAfterEach } from './support/cleanup.js';
import { causeText } from '../src/errors.js';

const ME = 'did:web:acme.example:agent:me';
const REQ = { resource: 'lock:deploy/production', actorDid: ME };
let plane: ScriptedPlane | undefined;

closeAfterEach(() => [plane]);

async function clientFor(
  replies: Reply[] | ((i: number) => Reply),
  extra: Partial<PlaneClientOptions> = {},
) {
  plane = await startScriptedPlane((_req, i) =>
    typeof replies === 'function' ? replies(i) : (replies[i] ?? { status: 500 }),
  );
  const time = fakeTime();
  const client = createPlaneClient({
    apiUrl: plane.url,
    key: 'sekrit',
    clock: time.clock,
    sleep: time.sleep,
    random: () => 0.5,
    ...extra,
  });
  return { client, time, plane };
}

describe('the plane client, against a real server', () => {
  it('posts the documented request with the Bearer key', async () => {
    const { client, plane } = await clientFor([{ body: granted(ME) }]);
    const answer = await client.lease(REQ);
    expect(answer).toMatchObject({ kind: 'granted', lease: { id: 'lease_1', holder: ME } });
    const [seen] = plane.seen;
    expect(seen).toMatchObject({
      method: 'POST',
      path: '/api/v1/acp/coordination/lease',
      body: REQ,
    });
    expect(seen?.headers.authorization).toBe('Bearer sekrit');
    expect(seen?.headers['content-type']).toBe('application/json');
  });

  it('accepts unknown fields and keeps the fence', async () => {
    const body = {
      ...granted(ME, 'lease_9', { fence: 7, policy: { x: 1 }, tags: [] }),
      trace: 'abc',
    };
    const { client } = await clientFor([{ body }]);
    const answer = await client.lease(REQ);
    expect(answer).toMatchObject({ kind: 'granted', lease: { id: 'lease_9', fence: 7 } });
  });

  it.each([200, 409, 423])('reads a lease_held refusal sent with status %i', async (status) => {
    const { client } = await clientFor([{ status, body: held('did:web:other', 2_500) }]);
    expect(await client.lease(REQ)).toEqual({
      kind: 'held',
      holder: 'did:web:other',
      waitMs: 2_500,
      reserved: false,
      preferenceApplied: false,
    });
  });

  it('passes on other refusal reasons', async () => {
    const { client } = await clientFor([
      { status: 409, body: { ok: false, reason: 'actor_suspended', message: 'ops said so' } },
    ]);
    expect(await client.lease(REQ)).toEqual({
      kind: 'refused',
      reason: 'actor_suspended',
      message: 'ops said so',
    });
  });

  it.each([
    [
      { ok: true, lease: { id: 'x', resource: 'r', holder: ME, expiresAtMs: 'soon' } },
      /lease\.expiresAtMs/,
    ],
    [{ ok: true }, /lease: /],
    [{ ok: false, reason: 'lease_held', holder: 'h' }, /stampede/],
    [
      { ok: false, reason: 'lease_held', holder: 'h', stampede: { waitMs: -1 } },
      /stampede\.waitMs/,
    ],
    [{ hello: 'world' }, /reason/],
  ])('names the field of a body that breaks the contract (%j)', async (body, field) => {
    const { client } = await clientFor([{ body }]);
    const error = await client.lease(REQ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect(causeText(error)).toMatch(field);
    expect(causeText(error)).toMatch(/does not match the plane's contract/);
  });

  it('reports a body that is not JSON', async () => {
    const { client } = await clientFor([{ raw: '<html>oops</html>' }]);
    await expect(client.lease(REQ)).rejects.toThrow(/not JSON/);
  });

  it.each([401, 403])('does not retry a refused key (%i)', async (status) => {
    const { client, plane } = await clientFor([{ status, body: { error: 'nope' } }]);
    const error = await client.lease(REQ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyRefusedError);
    expect(causeText(error)).toMatch(/refused the key/);
    expect(causeText(error)).not.toContain('sekrit');
    expect(plane.seen).toHaveLength(1);
  });

  it.each([400, 404, 422])('does not retry our own mistakes (%i)', async (status) => {
    const { client, plane } = await clientFor([
      { status, body: { ok: false, reason: 'bad_request', message: 'resource is required' } },
    ]);
    const error = await client.lease(REQ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestRejectedError);
    expect(causeText(error)).toMatch(new RegExp(`${status}.*resource is required`));
    expect(plane.seen).toHaveLength(1);
  });

  it('retries 5xx, 408 and dropped connections with growing back-off', async () => {
    const { client, time, plane } = await clientFor([
      { status: 503 },
      { status: 408 },
      { destroy: true },
      { status: 502 },
      { body: granted(ME) },
    ]);
    expect((await client.lease(REQ)).kind).toBe('granted');
    expect(plane.seen).toHaveLength(5);
    // equal jitter at random()=0.5: 3/4 of min(cap, 250 * 2^n)
    expect(time.sleeps).toEqual([188, 375, 750, 1_500]);
  });

  it('honours Retry-After on 429', async () => {
    const { client, time } = await clientFor([
      { status: 429, headers: { 'retry-after': '3' } },
      { body: granted(ME) },
    ]);
    await client.lease(REQ);
    expect(time.sleeps).toEqual([3_000]);
  });

  it('gives up when the retry budget is spent', async () => {
    const { client, plane, time } = await clientFor(() => ({ status: 500 }));
    const until = time.clock.now() + 2_000;
    const error = await client.lease(REQ, { retryUntilMs: until }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlaneUnavailableError);
    // Back-offs of about 0.19, 0.38, 0.75 s, then one cut to the deadline: the last attempt is at it.
    expect(causeText(error)).toMatch(/500 Internal Server Error.*after 5 attempt.*over 2 s/);
    expect(plane.seen).toHaveLength(5);
    expect(time.clock.now()).toBe(until);
  });

  it('bounds the attempts whatever the budget', async () => {
    const { client, plane, time } = await clientFor(() => ({ status: 500 }), {
      retry: { baseMs: 1, capMs: 1, maxAttempts: 3 },
    });
    await expect(client.lease(REQ, { retryUntilMs: time.clock.now() + 3_600_000 })).rejects.toThrow(
      PlaneUnavailableError,
    );
    expect(plane.seen).toHaveLength(3);
  });

  it('gives each request its own timeout', async () => {
    plane = await startScriptedPlane(() => new Promise<Reply>(() => undefined));
    const time = fakeTime();
    const client = createPlaneClient({
      apiUrl: plane.url,
      requestTimeoutMs: 50,
      clock: time.clock,
      sleep: time.sleep,
      retry: { baseMs: 1, capMs: 1, maxAttempts: 2 },
    });
    await expect(client.lease(REQ)).rejects.toThrow(/no answer within 50 ms/);
  });

  it('stops at once when its signal aborts', async () => {
    plane = await startScriptedPlane(() => new Promise<Reply>(() => undefined));
    const client = createPlaneClient({ apiUrl: plane.url });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 20);
    await expect(client.lease(REQ, { signal: abort.signal })).rejects.toThrow(CancelledError);
  });

  it('sends no Authorization header without a key', async () => {
    const { plane } = await clientFor([{ body: granted(ME) }]);
    await createPlaneClient({ apiUrl: plane.url }).lease(REQ);
    expect(plane.seen[0]?.headers.authorization).toBeUndefined();
  });

  it('releases by resource and actor and reads releasedIds', async () => {
    const { client, plane } = await clientFor([
      { body: released('lease_1') },
      { body: released() },
    ]);
    expect(await client.release(REQ)).toEqual({ released: true, releasedIds: ['lease_1'] });
    expect(await client.release(REQ)).toEqual({ released: false, releasedIds: [] });
    expect(plane.seen[0]).toMatchObject({ path: '/api/v1/acp/coordination/release', body: REQ });
  });

  it('reads who holds a resource without taking it', async () => {
    const { client, plane } = await clientFor([
      { body: { ok: true, lease: granted('did:web:x').lease } },
      { body: { ok: true, lease: null } },
    ]);
    expect(await client.status('lock:deploy/production')).toMatchObject({ holder: 'did:web:x' });
    expect(await client.status('lock:deploy/production')).toBeNull();
    expect(plane.seen[0]).toMatchObject({
      method: 'GET',
      path: '/api/v1/acp/coordination/lease?resource=lock%3Adeploy%2Fproduction',
    });
  });
});
