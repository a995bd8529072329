import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/http/client.js';
import { createAuthorizer } from '../src/kernel/auth/authorize.js';
import {
  createOidcVerifier,
  JWKS_CACHE_MS,
  JWKS_MAX_STALE_MS,
  JWKS_MIN_REFRESH_MS,
} from '../src/kernel/auth/oidc.js';
import { compilePolicy } from '../src/kernel/auth/policy.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { startFakeIssuer, unsignedToken, type FakeIssuer } from './support/fake-oidc.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * How long the kernel trusts the keys it fetched: a key the issuer dropped stops
 * verifying new tokens within `JWKS_CACHE_MS`, and an issuer that is down costs
 * one fetch per `JWKS_MIN_REFRESH_MS`, however many tokens come. The kernel and
 * the issuer share one injected clock; nothing sleeps.
 */

const RUN = 'did:web:github.com:acme:shop:actions:runs:4242:attempts:1';
const OWN = `${RUN}:jobs:deploy:aaaa1111`;
const STAGING = 'lock:deploy/staging';

let clock = Date.now();
const now = () => clock;
let issuer: FakeIssuer | undefined;
let kernel: RunningKernel | undefined;
const http = createHttpClient();

closeAfterEach(() => [kernel, issuer]);

async function start(): Promise<{ issuer: FakeIssuer; kernel: RunningKernel }> {
  issuer = await startFakeIssuer({ now });
  const verifier = createOidcVerifier({ issuer: issuer.url, audience: 'lease-gate', http, now });
  const policy = compilePolicy({
    rules: [{ name: 'acme', resources: ['lock:deploy/*'], claims: { repository_owner: 'acme' } }],
  });
  const auth = createAuthorizer({ oidc: { verifier, didHost: 'github.com', policy } });
  kernel = await startKernelServer({ auth, log: () => {} });
  return { issuer, kernel };
}

async function lease(token: string, resource = STAGING) {
  const response = await fetch(`${kernel!.url}/api/v1/acp/coordination/lease`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ resource, actorDid: OWN }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const fetches = (i: FakeIssuer) => i.hits['/.well-known/openid-configuration'] ?? 0;

describe('the JWKS cache', () => {
  it('stops a dropped key from verifying new tokens once the cache age passes', async () => {
    const { issuer } = await start();
    const dropped = issuer.current;
    expect((await lease(await issuer.sign(), 'lock:deploy/a')).body).toMatchObject({ ok: true });
    await issuer.rotate(true);

    // Just inside the bound, a fresh token signed with the dropped key still verifies…
    clock += JWKS_CACHE_MS - 1_000;
    expect((await lease(await issuer.sign({ key: dropped }), 'lock:deploy/b')).status).toBe(200);
    expect(fetches(issuer)).toBe(1);
    // …and just past it the keys are fetched again: the dropped key no longer verifies.
    clock += 2_000;
    const late = await lease(await issuer.sign({ key: dropped }), 'lock:deploy/c');
    expect(late.status).toBe(401);
    expect(String(late.body.message)).toContain("a key the issuer doesn't publish");
    expect(fetches(issuer)).toBe(2);
    expect((await lease(await issuer.sign(), 'lock:deploy/c')).body).toMatchObject({ ok: true });
  });

  it('keeps the last keys while the issuer is down, for a bounded time only', async () => {
    const { issuer } = await start();
    expect((await lease(await issuer.sign(), 'lock:deploy/a')).status).toBe(200);
    issuer.down = true;
    clock += JWKS_CACHE_MS + 1_000;
    // The refetch fails: the keys fetched before still verify, and one fetch was tried.
    expect((await lease(await issuer.sign(), 'lock:deploy/b')).status).toBe(200);
    expect(fetches(issuer)).toBe(2);
    clock += JWKS_MAX_STALE_MS;
    const stale = await lease(await issuer.sign(), 'lock:deploy/c');
    expect(stale.status).toBe(503);
    expect(stale.body).toMatchObject({ ok: false, reason: 'issuer_unavailable' });
    issuer.down = false;
    clock += JWKS_MIN_REFRESH_MS;
    expect((await lease(await issuer.sign(), 'lock:deploy/c')).status).toBe(200);
  });

  it('fetches once per bound, not once per request, from an issuer that is down at start', async () => {
    const { issuer } = await start();
    issuer.down = true;
    const stranger = await issuer.stranger();
    const answers = [];
    for (let i = 0; i < 50; i += 1) {
      // Junk of the right shape: an allowed alg and a kid nobody publishes, signed by nobody known.
      answers.push(await lease(await issuer.sign({ key: stranger })));
    }
    expect(answers.every((a) => a.status === 503)).toBe(true);
    expect(answers[0]!.body).toMatchObject({ reason: 'issuer_unavailable' });
    expect(fetches(issuer)).toBe(1);
    // Not even a JWS of an allowed algorithm: refused without asking the issuer at all.
    for (const junk of ['a.b.c', unsignedToken({ alg: 'none' }, { sub: 'x' })]) {
      expect((await lease(junk)).status).toBe(401);
    }
    expect(fetches(issuer)).toBe(1);

    // The issuer is back: the next attempt comes after the bound, and then tokens verify.
    issuer.down = false;
    expect((await lease(await issuer.sign())).status).toBe(503);
    expect(fetches(issuer)).toBe(1);
    clock += JWKS_MIN_REFRESH_MS;
    expect((await lease(await issuer.sign())).body).toMatchObject({ ok: true });
    expect(fetches(issuer)).toBe(2);
  });
});

afterEach(() => {
  clock = Date.now();
});
