import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { checkMeaning } from '../src/ledger/meaning.js';
import {
  PromotionRecord,
  parsePromotion,
  promotionChain,
  type Promotion,
} from '../src/ledger/promotion.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { createPlaneClient, type PlaneClient } from '../src/plane/client.js';
import { runCli, startKernelProcess } from './support/kernel-process.js';
import { exportLedger } from './support/ledger-export.js';
import { describeEachStore } from './support/store-kernels.js';
import { PROD } from './support/names.js';
import { entryMaker } from './support/ledger-entries.js';

/**
 * Promotion order: a commit takes a resource only once the ledger shows it completed a hold on
 * the step before; refused naming the missing step; a hotfix only with a break-glass; `verify`
 * checks the same rule offline from the ledger.
 */

const DEV = 'lock:deploy/dev';
const STAGING = 'lock:deploy/staging';
const ADMIN = 'promotion-admin-key';
const REPO = 'acme/shop';
const commit = (n: number) => n.toString(16).padStart(40, 'c');
const did = (n: number, env: string) => `did:web:ci.example:pipelines:${n}:jobs:${env}`;
const chainOf = (...specs: string[]) => {
  const chain = promotionChain(specs.map((s) => parsePromotion(s)!));
  if (typeof chain === 'string') throw new Error(chain);
  return chain;
};

describe('the promotion order, read from entries', () => {
  it('parses FROM->TO, environment names meaning lock:deploy/NAME, and refuses loops and forks', () => {
    expect(parsePromotion('staging->production')).toEqual<Promotion>({ from: STAGING, to: PROD });
    expect(parsePromotion('lock:a->lock:b')).toEqual({ from: 'lock:a', to: 'lock:b' });
    for (const bad of ['staging', 'a->a', 'a->b->c', '->b', 'a b->c'])
      expect(parsePromotion(bad), bad).toBeUndefined();
    expect(promotionChain([parsePromotion('a->b')!, parsePromotion('b->a')!])).toMatch(/loops/);
    expect(promotionChain([parsePromotion('a->c')!, parsePromotion('b->c')!])).toMatch(
      /promoted to from two resources/,
    );
  });

  it('counts a release as completed; not an outdated release, a lapse or a revoke', () => {
    const record = new PromotionRecord(chainOf('staging->production'));
    const deploy = (n: number) => ({ repository: REPO, commit: commit(n) });
    const grant = (n: number) => ({
      kind: 'grant' as const,
      resource: STAGING,
      leaseId: `l${n}`,
      deploy: deploy(n),
    });
    const end = (n: number, kind: LedgerEntry['kind'], reason?: string) => ({
      kind,
      resource: STAGING,
      leaseId: `l${n}`,
      ...(reason ? { reason } : {}),
    });
    record.add(grant(1));
    record.add(end(1, 'release'));
    record.add(grant(2));
    record.add(end(2, 'release', 'outdated'));
    record.add(grant(3));
    record.add(end(3, 'lapse'));
    record.add(grant(4));
    record.add(end(4, 'revoke'));
    record.add(grant(5)); // still open: not completed
    expect(record.missing(PROD, deploy(1))).toBeUndefined();
    for (const n of [2, 3, 4, 5]) {
      expect(record.missing(PROD, deploy(n))).toBe(
        `${REPO}@${commit(n).slice(0, 12)} has not completed a hold on ${STAGING}: deploy it there first (promotion order ${STAGING} -> ${PROD})`,
      );
    }
    expect(record.missing(PROD, undefined)).toMatch(/this request names no commit/);
    expect(record.missing(STAGING, undefined)).toBeUndefined();
    // Another repository's same commit is not it.
    expect(record.missing(PROD, { repository: 'acme/other', commit: commit(1) })).toBeDefined();
  });

  it('verify refuses a grant out of order, and accepts it after a break-glass for that job', () => {
    const chain = chainOf('staging->production');
    const e = entryMaker(did(9, 'prod'));
    const prodGrant = (fence: number) =>
      e({
        leaseId: `p${fence}`,
        fence,
        expiresAtMs: 100_000,
        deploy: { repository: REPO, commit: commit(9) },
      });
    e.restart();
    const outOfOrder = [prodGrant(1)];
    expect(() => checkMeaning(outOfOrder, false)).not.toThrow();
    expect(() => checkMeaning(outOfOrder, false, chain)).toThrow(
      `entry 0: grants p1 on ${PROD} to ${did(9, 'prod')}, but ${REPO}@${commit(9).slice(0, 12)} has not completed a hold on ${STAGING}`,
    );
    e.restart();
    const hotfix = [
      e({
        kind: 'break_glass',
        reason: 'hotfix',
        by: 'operator:alice',
        expiresAtMs: 100_000,
      }),
      prodGrant(1),
    ];
    expect(() => checkMeaning(hotfix, false, chain)).not.toThrow();
    // A partial range cannot know the holds before it: the order is not checked there.
    expect(() => checkMeaning(outOfOrder, true, chain)).not.toThrow();
  });
});

/** Takes `resource` as pipeline `n`'s job (blocking asks, bounded), or says why it was refused. */
async function take(client: PlaneClient, resource: string, n: number, env: string) {
  const req = { resource, actorDid: did(n, env), deploy: { repository: REPO, commit: commit(n) } };
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const answer = await client.lease(req, { waitSeconds: 5 });
    if (answer.kind !== 'held') return answer;
  }
  throw new Error(`pipeline ${n} never got ${resource}`);
}

describeEachStore('promotion order over HTTP', (start) => {
  it('20 commits through 3 environments, finishing in random order: 0 out-of-order deploys', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const { url } = await start({
      adminKey: ADMIN,
      signingKey: privateKey,
      promote: chainOf('dev->staging', 'staging->production'),
    });
    const client = createPlaneClient({ apiUrl: url });
    // A seeded stream: the run is the same each time, and random enough to interleave.
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const hold = () => new Promise((r) => setTimeout(r, Math.floor(random() * 15)));
    const refused: string[] = [];
    let skipped = 0;
    try {
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const n = i + 1;
          await hold();
          for (const [env, resource, before] of [
            ['dev', DEV, undefined],
            ['staging', STAGING, DEV],
            ['prod', PROD, STAGING],
          ] as const) {
            // Every third pipeline tries production before staging: the step it has not done.
            if (before && n % 3 === 0 && env === 'staging') {
              const early = await take(client, PROD, n, 'early');
              expect(early).toMatchObject({ kind: 'refused', reason: 'not_promoted' });
              refused.push(early.kind === 'refused' ? (early.message ?? '') : '');
            }
            // Every seventh pipeline's staging job finds it has nothing to deploy: not completed.
            const answer = await take(client, resource, n, env);
            if (answer.kind !== 'granted') {
              skipped += 1;
              expect(answer).toMatchObject({ kind: 'refused', reason: 'not_promoted' });
              return;
            }
            await hold();
            const outdated = env === 'staging' && n % 7 === 0;
            await client.release({
              resource,
              actorDid: did(n, env),
              ...(outdated ? { outdated } : {}),
            });
            if (outdated) return;
          }
        }),
      );
      // The early tries were refused naming the missing step, before staging had it.
      expect(refused.length).toBeGreaterThanOrEqual(6);
      for (const message of refused) expect(message).toMatch(/has not completed a hold on/);
      expect(skipped).toBe(0);

      const { bundle, publicKey: served, entries } = await exportLedger(url);
      expect(served).toBe(publicKey.export({ type: 'spki', format: 'pem' }).toString());
      // Out of order: a grant whose commit had no completed hold on the step before, earlier.
      const done = new Map<string, Set<string>>();
      const open = new Map<string, { resource: string; commit: string }>();
      let outOfOrder = 0;
      let prodGrants = 0;
      for (const e of entries) {
        const c = e.deploy?.commit as string | undefined;
        if (e.kind === 'grant' && c) {
          const before = e.resource === PROD ? STAGING : e.resource === STAGING ? DEV : undefined;
          if (before && !done.get(before)?.has(c)) outOfOrder += 1;
          if (e.resource === PROD) prodGrants += 1;
          open.set(e.leaseId, { resource: e.resource, commit: c });
        }
        if (e.kind === 'release' && e.reason !== 'outdated') {
          const o = open.get(e.leaseId);
          if (o) done.set(o.resource, (done.get(o.resource) ?? new Set()).add(o.commit));
        }
      }
      expect(outOfOrder).toBe(0);
      // 20 pipelines, 2 of which (7, 14) stopped at staging.
      expect(prodGrants).toBe(18);
      const promote = chainOf('dev->staging', 'staging->production');
      expect(verifyBundle(bundle, createPublicKey(served), { promote })).toMatchObject({
        count: entries.length,
      });
      // The overview says the order.
      const overview = (await (await fetch(`${url}/api/v1/kernel/resources`)).json()) as {
        promotions?: Promotion[];
      };
      expect(overview.promotions).toEqual([
        { from: DEV, to: STAGING },
        { from: STAGING, to: PROD },
      ]);
    } finally {
      await client.close();
    }
  });

  it('a hotfix skips staging only with a break-glass, which the ledger records and verify accepts', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const promote = chainOf('staging->production');
    const { url } = await start({ adminKey: ADMIN, signingKey: privateKey, promote });
    const client = createPlaneClient({ apiUrl: url });
    try {
      const hotfix = did(99, 'prod');
      const req = {
        resource: PROD,
        actorDid: hotfix,
        deploy: { repository: REPO, commit: commit(99) },
      };
      expect(await client.lease(req)).toMatchObject({
        kind: 'refused',
        reason: 'not_promoted',
        message: `${REPO}@${commit(99).slice(0, 12)} has not completed a hold on ${STAGING}: deploy it there first (promotion order ${STAGING} -> ${PROD})`,
      });
      // No commit named: refused too (fail closed).
      expect(await client.lease({ resource: PROD, actorDid: hotfix })).toMatchObject({
        reason: 'not_promoted',
        message: expect.stringMatching(/names no commit/),
      });
      await client.breakGlass({ resource: PROD, actorDid: hotfix, reason: 'outage hotfix' }, ADMIN);
      expect(await client.lease(req)).toMatchObject({ kind: 'granted' });
      await client.release(req);
      // Once: the next try is refused again.
      expect(await client.lease(req)).toMatchObject({ reason: 'not_promoted' });
      const { bundle, publicKey, entries } = await exportLedger(url);
      expect(entries.map((e) => e.kind)).toEqual(['break_glass', 'grant', 'release']);
      expect(verifyBundle(bundle, createPublicKey(publicKey), { promote })).toMatchObject({
        count: 3,
      });
    } finally {
      await client.close();
    }
  });
});

describe('promotion order from the committed CLI', () => {
  it('kernel --promote refuses bad input; acquire is refused naming the step; verify --promote', async () => {
    for (const bad of ['staging', 'a->a']) {
      const r = await runCli(['kernel', '--port', '0', '--promote', bad], {});
      expect(r).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^Invalid --promote '.*'\. Expected FROM->TO/),
      });
    }
    const kernel = await startKernelProcess(['--quiet', '--promote', 'staging->production'], {});
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-promotion-'));
    try {
      const env = { INTRAMEDIAL_API_URL: kernel.url };
      const as = (env2: string) => [
        '--actor-did',
        did(1, env2),
        '--repository',
        REPO,
        '--commit',
        commit(1),
      ];
      const early = await runCli(
        ['acquire', '--resource', PROD, ...as('prod'), '--wait-timeout', '0'],
        env,
      );
      expect(early.code).toBe(1);
      expect(early.stderr).toContain(`has not completed a hold on ${STAGING}`);
      expect(await runCli(['acquire', '--resource', STAGING, ...as('staging')], env)).toMatchObject(
        { code: 0 },
      );
      expect(
        await runCli(['release', '--resource', STAGING, '--actor-did', did(1, 'staging')], env),
      ).toMatchObject({ code: 0 });
      expect(await runCli(['acquire', '--resource', PROD, ...as('prod')], env)).toMatchObject({
        code: 0,
      });
      const out = join(dir, 'ledger.json');
      expect(
        await runCli(['ledger', 'export', '--url', kernel.url, '--out', out], {}),
      ).toMatchObject({ code: 0 });
      const verified = await runCli(
        ['verify', out, '--public-key', `${out}.pub`, '--promote', 'staging->production'],
        {},
      );
      expect(verified).toMatchObject({ code: 0, stdout: expect.stringMatching(/^OK .*size 3\b/) });
      // The same ledger against an order it did not follow: the first prod grant is named.
      const wrong = await runCli(
        ['verify', out, '--public-key', `${out}.pub`, '--promote', 'dev->staging'],
        {},
      );
      expect(wrong).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(
          /^FAIL: entry 0: grants .* on lock:deploy\/staging .* has not completed a hold on lock:deploy\/dev/,
        ),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await kernel.stop();
    }
  });
});
