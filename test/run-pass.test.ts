import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { deriveActorDid } from '../src/lease/did.js';
import { Ledger } from '../src/ledger/ledger.js';
import { checkMeaning } from '../src/ledger/meaning.js';
import { parsePromotion, promotionChain } from '../src/ledger/promotion.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { passCovers, runOfDid, runPassDid } from '../src/plane/run-pass.js';
import { BREAK_GLASS_PATH } from '../src/plane/schema.js';
import { createPlaneClient } from '../src/plane/client.js';
import { exportLedger } from './support/ledger-export.js';
import { PROD } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';
import { entryMaker } from './support/ledger-entries.js';

/**
 * A break-glass pass for a GitHub run (plane/run-pass.ts): its form, which DIDs it covers
 * (any attempt, job and nonce of that run, nothing else), verify's reading (one grant under
 * the run uses it), and the HTTP route's `run` in place of `actorDid`.
 */

const ADMIN = 'run-pass-admin-key';
const RUN = 'did:web:github.com:acme:shop:actions:runs:12345';
const job = (run: string, attempt: number, nonce: string, repo = 'acme:shop') =>
  `did:web:github.com:${repo}:actions:runs:${run}:attempts:${attempt}:jobs:deploy:${nonce}`;
const chain = () => {
  const c = promotionChain([parsePromotion('staging->production')!]);
  if (typeof c === 'string') throw new Error(c);
  return c;
};

let kernel: RunningKernel | undefined;
closeAfterEach(() => [kernel]);

describe('a pass for a run', () => {
  it('reads OWNER/REPO/RUN_ID (or with a host) and nothing else', () => {
    expect(runPassDid('acme/shop/12345')).toBe(RUN);
    expect(runPassDid('ghe.example:8443/acme/shop/7')).toBe(
      'did:web:ghe.example%3A8443:acme:shop:actions:runs:7',
    );
    for (const bad of ['acme/shop', 'acme/shop/0', 'acme/shop/1x', 'a_b/shop/1', 'acme/../1', ''])
      expect(runPassDid(bad), bad).toBeUndefined();
    expect(runOfDid(job('12345', 2, 'ab12'))).toBe('acme/shop/12345');
    expect(runOfDid('did:web:ci.example:pipelines:1')).toBeUndefined();
  });

  it("covers every DID the action derives for that run, and no other run's or repository's", () => {
    expect(passCovers(RUN, job('12345', 1, 'aa'))).toBe(true);
    expect(passCovers(RUN, job('12345', 7, 'bb'))).toBe(true);
    expect(passCovers(RUN, job('12345', 1, 'aa', 'ACME:Shop'))).toBe(true);
    expect(passCovers(RUN, job('123456', 1, 'aa'))).toBe(false);
    expect(passCovers(RUN, job('1234', 1, 'aa'))).toBe(false);
    expect(passCovers(RUN, job('12345', 1, 'aa', 'acme:shop2'))).toBe(false);
    expect(passCovers(RUN, `${RUN}:attempts:1:jobs:deploy:aa:more`)).toBe(false);
    expect(passCovers(RUN, RUN)).toBe(true);
    // The DIDs the action derives (lease/did.ts), on github.com and on a server with a port.
    const derived = (serverUrl: string, runAttempt: string) =>
      deriveActorDid(
        { serverUrl, repository: 'acme/shop', runId: '7', runAttempt, job: 'deploy' },
        'f00d',
      );
    expect(passCovers(runPassDid('acme/shop/7')!, derived('https://github.com', '3'))).toBe(true);
    const ghe = runPassDid('ghe.example:8443/acme/shop/7')!;
    expect(passCovers(ghe, derived('https://ghe.example:8443', '1'))).toBe(true);
    expect(passCovers(ghe, derived('https://github.com', '1'))).toBe(false);
    // A pass for one agent covers only that DID.
    expect(passCovers(job('12345', 1, 'aa'), job('12345', 1, 'bb'))).toBe(false);
  });

  it('verify accepts one grant under the run as using the pass, and no second', () => {
    const e = entryMaker(RUN);
    const grant = (fence: number, actorDid: string) =>
      e({
        leaseId: `p${fence}`,
        fence,
        actorDid,
        expiresAtMs: 100_000,
        deploy: { repository: 'acme/shop', commit: 'c'.repeat(40) },
      });
    const pass = () =>
      e({ kind: 'break_glass', reason: 'hotfix', by: 'operator:alice', expiresAtMs: 100_000 });
    const release = (fence: number, actorDid: string) =>
      e({ kind: 'release', leaseId: `p${fence}`, fence, actorDid });
    const once = [pass(), grant(1, job('12345', 2, 'ab')), release(1, job('12345', 2, 'ab'))];
    expect(() => checkMeaning(once, false, chain())).not.toThrow();
    const twice = [...once, grant(2, job('12345', 3, 'cd'))];
    expect(() => checkMeaning(twice, false, chain())).toThrow(
      /entry 3: grants p2 .* no break-glass/,
    );
    e.restart();
    const otherRun = [pass(), grant(1, job('777', 1, 'ab'))];
    expect(() => checkMeaning(otherRun, false, chain())).toThrow(/entry 1: grants p1/);
  });

  it('HTTP: break-glass takes run in place of actorDid; a job of that run is granted once', async () => {
    const promote = chain();
    const { privateKey } = generateKeyPairSync('ed25519');
    kernel = await startKernelServer({ adminKey: ADMIN, promote, ledger: new Ledger(privateKey) });
    const post = async (body: object) => {
      const res = await request(`${kernel!.url}${BREAK_GLASS_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    const base = { resource: PROD, reason: 'hotfix' };
    expect(await post({ ...base, run: 'acme/shop' })).toMatchObject({ status: 400 });
    expect(await post({ ...base, run: 'acme/shop/1', actorDid: job('1', 1, 'a') })).toMatchObject({
      status: 400,
    });
    expect(await post(base)).toMatchObject({ status: 400 });
    expect(await post({ ...base, run: 'acme/shop/12345' })).toMatchObject({
      status: 200,
      body: { ok: true, actorDid: RUN },
    });
    const client = createPlaneClient({ apiUrl: kernel.url });
    try {
      const ask = (actorDid: string) =>
        client.lease({
          resource: PROD,
          actorDid,
          deploy: { repository: 'acme/shop', commit: 'c'.repeat(40) },
        });
      expect(await ask(job('777', 1, 'ee'))).toMatchObject({
        reason: 'not_promoted',
        message: expect.stringContaining('lease-gate break-glass --run acme/shop/777'),
      });
      const first = job('12345', 2, 'ab');
      expect(await ask(first)).toMatchObject({ kind: 'granted' });
      await client.release({ resource: PROD, actorDid: first });
      expect(await ask(job('12345', 3, 'cd'))).toMatchObject({ reason: 'not_promoted' });
      const { bundle, publicKey: served } = await exportLedger(kernel.url);
      expect(verifyBundle(bundle, createPublicKey(served), { promote })).toMatchObject({
        size: 3,
      });
    } finally {
      await client.close();
    }
  });
});
