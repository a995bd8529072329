import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelAuth } from '../src/cli/kernel-auth.js';
import { createHttpClient } from '../src/http/client.js';
import { createAuthorizer } from '../src/kernel/auth/authorize.js';
import { keyHash, readScopedKeys } from '../src/kernel/auth/keys.js';
import { createOidcVerifier } from '../src/kernel/auth/oidc.js';
import { readPolicy } from '../src/kernel/auth/policy.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import {
  RUN_CLAIMS,
  startFakeIssuer,
  unsignedToken,
  type FakeIssuer,
} from './support/fake-oidc.js';
import { PROD } from './support/names.js';
import { causeText } from '../src/errors.js';
import { writePolicy } from './support/policy.js';

/**
 * The kernel with OIDC tokens and scoped keys, over HTTP, against a fake
 * issuer on loopback. Each credential may act only as the DIDs it allows.
 */

const RUN = 'did:web:github.com:acme:shop:actions:runs:4242:attempts:1';
const OWN = `${RUN}:jobs:deploy:aaaa1111`;
const MATRIX_LEG = `${RUN}:jobs:deploy-eu:bbbb2222`;
const OTHER_RUN = 'did:web:github.com:acme:shop:actions:runs:777:attempts:1:jobs:deploy:cccc3333';
const RETRY = 'did:web:github.com:acme:shop:actions:runs:4242:attempts:2:jobs:deploy:dddd4444';
/** Not production: the first test leaves other runs queued there, and a freed lease is reserved for them. */
const LATER = 'lock:deploy/staging-later';

const dir = mkdtempSync(join(tmpdir(), 'lease-gate-oidc-'));
const policyFile = writePolicy(dir, [
  {
    name: 'production from main',
    resources: [PROD],
    claims: { repository: 'acme/shop', ref: 'refs/heads/main', environment: 'production' },
  },
  {
    name: 'staging from acme',
    resources: ['lock:deploy/staging*'],
    claims: { repository_owner: 'acme' },
  },
]);
const JENKINS_KEY = 'jenkins-key-0b5e8d';
const keysFile = join(dir, 'keys.json');
writeFileSync(
  keysFile,
  JSON.stringify({
    keys: [
      {
        name: 'jenkins',
        sha256: keyHash(JENKINS_KEY),
        actors: ['did:web:ci.example.com:jenkins:*'],
        resources: ['lock:deploy/staging'],
      },
    ],
  }),
);

let issuer: FakeIssuer;
let kernel: RunningKernel;
const http = createHttpClient();
/** The kernel's clock runs this far ahead of the issuer's, to step past the refetch bound without sleeping. */
let ahead = 0;
const MIN_REFRESH_MS = 5_000;

beforeAll(async () => {
  issuer = await startFakeIssuer();
  const verifier = createOidcVerifier({
    issuer: issuer.url,
    audience: 'lease-gate',
    http,
    now: () => Date.now() + ahead,
    minRefreshMs: MIN_REFRESH_MS,
  });
  const auth = createAuthorizer({
    keys: readScopedKeys(keysFile),
    oidc: { verifier, didHost: 'github.com', policy: readPolicy(policyFile) },
  });
  kernel = await startKernelServer({ auth, log: () => {} });
});

afterAll(async () => {
  await kernel?.close();
  await http.close();
  await issuer?.close();
});

async function call(path: string, token: string, body?: unknown) {
  const response = await fetch(kernel.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const lease = (token: string, actorDid: string, resource = PROD) =>
  call('/api/v1/acp/coordination/lease', token, { resource, actorDid });
const release = (token: string, actorDid: string, resource = PROD) =>
  call('/api/v1/acp/coordination/release', token, { resource, actorDid });

describe('OIDC tokens', () => {
  it('let a job lease as its own run, and only as its own run', async () => {
    const token = await issuer.sign();
    const granted = await lease(token, OWN);
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ ok: true, lease: { holder: OWN } });

    // Another run's token, holding the DID it read from a refusal, cannot renew or release the lease.
    const other = await issuer.sign({ claims: { run_id: '777' } });
    for (const answer of [await release(other, OWN), await lease(other, OWN)]) {
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ ok: false, reason: 'not_your_did' });
      expect(String(answer.body.message)).toContain('run 777');
    }
    // A second attempt of the same run is another identity too.
    const retry = await issuer.sign({ claims: { run_attempt: '2' } });
    expect((await release(retry, OWN)).body).toMatchObject({ reason: 'not_your_did' });
    expect(
      (await call(`/api/v1/acp/coordination/lease?resource=${PROD}`, other, undefined)).body,
    ).toMatchObject({
      ok: true,
      lease: { holder: OWN },
    });
    // The other run may still ask as itself, and is told who holds it.
    expect((await lease(other, OTHER_RUN)).body).toMatchObject({
      ok: false,
      reason: 'lease_held',
      holder: OWN,
    });
    expect((await lease(retry, RETRY)).body).toMatchObject({ reason: 'lease_held' });

    // A matrix leg of the same run may act under the same prefix; its own release is a no-op for OWN's lease.
    expect((await release(token, MATRIX_LEG)).body).toMatchObject({ ok: true, released: false });
    expect((await release(token, OWN)).body).toMatchObject({ ok: true, released: true });
  });

  it('are held to the policy, and a refusal names the rule', async () => {
    const feature = await issuer.sign({ claims: { ref: 'refs/heads/feature' } });
    const refused = await lease(feature, OWN);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ ok: false, reason: 'not_allowed' });
    expect(String(refused.body.message)).toMatch(
      /rule 1 \("production from main"\).*ref refs\/heads\/main.*refs\/heads\/feature/,
    );
    // The same token may lease what another rule allows; nothing a rule does not name.
    expect((await lease(feature, OWN, 'lock:deploy/staging-2')).body).toMatchObject({ ok: true });
    expect((await release(feature, OWN, 'lock:deploy/staging-2')).body).toMatchObject({
      released: true,
    });
    const elsewhere = await lease(feature, OWN, 'lock:db/migrate');
    expect(elsewhere.body).toMatchObject({ reason: 'not_allowed' });
    expect(String(elsewhere.body.message)).toContain('No rule');
    const stranger = await issuer.sign({
      claims: { repository: 'evil/shop', repository_owner: 'evil' },
    });
    expect(
      (
        await lease(
          stranger,
          'did:web:github.com:evil:shop:actions:runs:4242:attempts:1:jobs:x:1',
          'lock:deploy/staging',
        )
      ).body,
    ).toMatchObject({
      reason: 'not_allowed',
    });
  });

  it('refuse every token that does not verify', async () => {
    const jwk = issuer.current.jwk;
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      ...RUN_CLAIMS,
      iss: issuer.url,
      aud: 'lease-gate',
      iat: now,
      nbf: now,
      exp: now + 300,
    };
    const good = await issuer.sign();
    const [head, body, signature] = good.split('.');
    const flipped = `${signature!.startsWith('A') ? 'B' : 'A'}${signature!.slice(1)}`;
    const cases: Record<string, string> = {
      expired: await issuer.sign({ issuedAtInS: -900, notBeforeInS: -900, expiresInS: -600 }),
      'not yet valid': await issuer.sign({ notBeforeInS: 600, expiresInS: 900 }),
      'issued in the future': await issuer.sign({ issuedAtInS: 600, expiresInS: 900 }),
      'wrong audience': await issuer.sign({ audience: 'sigstore' }),
      'wrong issuer': await issuer.sign({ issuer: 'https://token.actions.githubusercontent.com' }),
      'bad signature': `${head}.${body}.${flipped}`,
      'changed claims': `${head}.${Buffer.from(JSON.stringify({ ...payload, run_id: '777' })).toString('base64url')}.${signature}`,
      'alg none': unsignedToken({ alg: 'none', typ: 'JWT' }, payload),
      // Signed with the issuer's public key as an HMAC secret: the classic algorithm confusion.
      'HMAC-signed': await new SignJWT(payload)
        .setProtectedHeader({ alg: 'HS256', kid: jwk.kid! })
        .sign(new TextEncoder().encode(JSON.stringify(jwk))),
      'unknown kid': await issuer.sign({ key: await issuer.stranger() }),
      'not a JWT': 'hello',
    };
    for (const [name, token] of Object.entries(cases)) {
      const answer = await lease(token, OWN);
      expect({ name, status: answer.status, reason: answer.body.reason }).toEqual({
        name,
        status: 401,
        reason: 'unauthorized',
      });
      expect(String(answer.body.message)).not.toContain(token.slice(-20));
    }
    expect(
      (await call(`/api/v1/acp/coordination/lease?resource=${PROD}`, cases['alg none']!)).status,
    ).toBe(401);
  });

  it('follow a key rotation, fetching the keys again at most once per bound', async () => {
    const before = issuer.hits['/.well-known/jwks'] ?? 0;
    const rotated = await issuer.rotate(true);
    const token = await issuer.sign({ key: rotated });
    // The unknown-kid case above fetched just now: within the bound the new key is not fetched.
    expect((await lease(token, OWN, LATER)).status).toBe(401);
    ahead += MIN_REFRESH_MS + 1_000;
    expect((await lease(token, OWN, LATER)).body).toMatchObject({ ok: true });
    expect((await release(token, OWN, LATER)).body).toMatchObject({ released: true });
    expect((issuer.hits['/.well-known/jwks'] ?? 0) - before).toBeGreaterThanOrEqual(1);
    // Many tokens with unknown kids do not make the kernel fetch many times.
    ahead += MIN_REFRESH_MS + 1_000;
    const fetched = issuer.hits['/.well-known/jwks'] ?? 0;
    const stranger = await issuer.stranger();
    for (let i = 0; i < 10; i += 1)
      expect((await lease(await issuer.sign({ key: stranger }), OWN, LATER)).status).toBe(401);
    expect((issuer.hits['/.well-known/jwks'] ?? 0) - fetched).toBeLessThanOrEqual(1);
  });
});

describe('a verified token', () => {
  it('is refused once it expires, though its signature is not checked again', async () => {
    const token = await issuer.sign({ expiresInS: 120 });
    expect((await lease(token, OWN, LATER)).body).toMatchObject({ ok: true });
    expect((await lease(token, OWN, LATER)).body).toMatchObject({ ok: true, renewed: true });
    ahead += 240_000;
    const late = await lease(token, OWN, LATER);
    expect(late.status).toBe(401);
    expect(String(late.body.message)).toContain('expired');
    ahead -= 240_000;
    expect((await release(token, OWN, LATER)).body).toMatchObject({ released: true });
  });
});

describe('scoped keys', () => {
  it('act only as their DIDs and lease only their resources', async () => {
    const me = 'did:web:ci.example.com:jenkins:build-17';
    expect((await lease(JENKINS_KEY, me, 'lock:deploy/staging')).body).toMatchObject({ ok: true });
    // The replayed-DID release from the issue: another key holder naming that DID.
    const other = await release(JENKINS_KEY, OWN, 'lock:deploy/staging');
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ reason: 'not_your_did' });
    expect(String(other.body.message)).toContain('"jenkins"');
    const prod = await lease(JENKINS_KEY, me, PROD);
    expect(prod.body).toMatchObject({ reason: 'not_allowed' });
    expect(String(prod.body.message)).toContain('lock:deploy/staging');
    // A token for this run cannot release the key holder's lease either.
    const token = await issuer.sign();
    expect((await release(token, me, 'lock:deploy/staging')).body).toMatchObject({
      reason: 'not_your_did',
    });
    expect((await release(JENKINS_KEY, me, 'lock:deploy/staging')).body).toMatchObject({
      released: true,
    });
    expect((await lease('some-other-key', me, 'lock:deploy/staging')).status).toBe(401);
  });
});

describe('the kernel credential flags', () => {
  const refusal = async (flags: Parameters<typeof kernelAuth>[0], key?: string) => {
    try {
      await kernelAuth(flags, key);
    } catch (error) {
      return causeText(error);
    }
    return 'accepted';
  };
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('refuse unsafe or inconsistent combinations before the kernel listens', async () => {
    expect(await refusal({ 'oidc-audience': 'lease-gate' })).toMatch(/needs --policy FILE/);
    expect(await refusal({ policy: policyFile })).toMatch(/need --oidc-audience/);
    expect(await refusal({ keys: keysFile }, 'shared')).toMatch(
      /LEASE_GATE_KERNEL_KEY makes everyone/,
    );
    expect(
      await refusal({
        'oidc-audience': 'lease-gate',
        'oidc-issuer': ['http://issuer.example.com'],
        policy: policyFile,
      }),
    ).toMatch(/--oidc-issuer: .*must be an https:\/\/ URL/);
  });

  it('name the line of a syntax error and the entry of a bad rule or key', async () => {
    const oidc = (policy: string) => refusal({ 'oidc-audience': 'lease-gate', policy });
    expect(
      await oidc(file('syntax.json', '{\n  "rules": [\n    { "name": "x", }\n  ]\n}')),
    ).toMatch(/syntax\.json: line 3, column \d+: not valid JSON/);
    const typo = file(
      'typo.json',
      JSON.stringify({
        rules: [
          { name: 'ok', resources: ['*'], claims: { repository: 'a/b' } },
          { name: 'prod', resources: ['x'], claims: { branch: 'main' } },
        ],
      }),
    );
    expect(await oidc(typo)).toMatch(/typo\.json: rules\[1\] \("prod"\) claims/);
    const keys = file(
      'keys-bad.json',
      JSON.stringify({ keys: [{ name: 'ci', sha256: 'abc', actors: ['*'], resources: ['*'] }] }),
    );
    expect(await refusal({ keys })).toMatch(/keys\[0\] \("ci"\) sha256: expected the SHA-256/);
    expect(await refusal({ keys: join(dir, 'missing.json') })).toMatch(
      /Cannot read .*missing\.json/,
    );
  });
});
