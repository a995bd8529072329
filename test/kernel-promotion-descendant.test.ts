import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAILED_FOR_MS, createGitHubCompare, type GitHubCompare } from '../src/github/compare.js';
import { GitHubError } from '../src/github/rest.js';
import { createHttpClient, type HttpClient } from '../src/http/client.js';
import { checkMeaning } from '../src/ledger/meaning.js';
import { parsePromotion, promotionChain } from '../src/ledger/promotion.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { createPlaneClient } from '../src/plane/client.js';
import { fakeTime } from './support/fake-time.js';
import { startFakeGitHubCompare, type FakeGitHubCompare } from './support/fake-github-compare.js';
import { runCli, startKernelProcess } from './support/kernel-process.js';
import { exportLedger } from './support/ledger-export.js';
import { describeEachStore } from './support/store-kernels.js';
import { PROD } from './support/names.js';
import { entryMaker } from './support/ledger-entries.js';
import { causeText } from '../src/errors.js';

/**
 * Promotion by descent: a commit may take production when a commit that completed staging
 * contains it, by GitHub's compare (a fake GitHub on loopback with its shapes). The grant
 * names that commit (`promotedVia`); verify checks the ledger shows it completed. GitHub
 * not answering refuses, naming GitHub (fail closed).
 */

const STAGING = 'lock:deploy/staging';
const REPO = 'acme/shop';
const TOKEN = 'ghs_compare_token_1';
const sha = (name: string) => Buffer.from(name).toString('hex').padEnd(40, '0').slice(0, 40);
// main: A ← B ← C ← S (S descends from C, B, A); a branch off A: X (diverged from C).
const A = sha('A');
const B = sha('B');
const C = sha('C');
const S = sha('S');
const X = sha('X');
const chain = (() => {
  const c = promotionChain([parsePromotion('staging->production')!]);
  if (typeof c === 'string') throw new Error(c);
  return c;
})();

let github: FakeGitHubCompare;
let http: HttpClient;
beforeEach(async () => {
  github = await startFakeGitHubCompare(TOKEN);
  github.commit(REPO, A);
  github.commit(REPO, B, [A]);
  github.commit(REPO, C, [B]);
  github.commit(REPO, S, [C]);
  github.commit(REPO, X, [A]);
  http = createHttpClient({ env: {} });
});
afterEach(async () => {
  await http.close();
  await github.close();
});

function compareWith(token: () => Promise<string> = async () => TOKEN, budgetMs?: number) {
  const time = fakeTime();
  const compare = createGitHubCompare({
    apiUrl: github.apiUrl,
    http,
    token,
    clock: time.clock,
    sleep: time.sleep,
    wallNow: () => 1_700_000_000_000,
    random: () => 0.5,
    ...(budgetMs !== undefined ? { budgetMs } : {}),
  });
  return { compare, sleeps: time.sleeps, sleep: time.sleep };
}

describe("GitHub's compare, as the kernel asks it", () => {
  it('says whether head is base or descends from it, and asks each pair once', async () => {
    const { compare } = compareWith();
    expect(await compare.contains(REPO, C, S)).toBe(true); // ahead
    expect(await compare.contains(REPO, A, S)).toBe(true);
    expect(await compare.contains(REPO, S, C)).toBe(false); // behind
    expect(await compare.contains(REPO, C, X)).toBe(false); // diverged
    expect(await compare.contains(REPO, C, C)).toBe(true); // the same commit: not asked
    expect(github.calls.map((c) => c.path)).toEqual([
      `/repos/acme/shop/compare/${C}...${S}`,
      `/repos/acme/shop/compare/${A}...${S}`,
      `/repos/acme/shop/compare/${S}...${C}`,
      `/repos/acme/shop/compare/${C}...${X}`,
    ]);
    expect(await compare.contains(REPO, C, S)).toBe(true);
    expect(github.calls).toHaveLength(4);
    expect(github.calls.every((c) => c.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('reads the token again once when GitHub refuses it (a rotated file)', async () => {
    const tokens = ['ghs_old_token', TOKEN];
    let reads = 0;
    const { compare } = compareWith(async () => tokens[Math.min(reads++, 1)]!);
    expect(await compare.contains(REPO, C, S)).toBe(true);
    expect(reads).toBe(2);
    expect(github.calls.map((c) => c.status)).toEqual([401, 200]);
    // A token GitHub never takes: refused after the one re-read, not asked forever.
    const { compare: bad } = compareWith(async () => 'ghs_wrong');
    const error = await bad.contains(REPO, B, S).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(causeText(error)).toMatch(/GitHub answered 401: Bad credentials/);
    expect(github.calls.map((c) => c.status)).toEqual([401, 200, 401, 401]);
  });

  it('backs off a 5xx with the injected sleep; a 404 is final; a rate limit past the budget gives up', async () => {
    const { compare, sleeps, sleep } = compareWith();
    github.faults.push({ status: 502 }, { status: 503 });
    expect(await compare.contains(REPO, B, S)).toBe(true);
    expect(github.calls.map((c) => c.status)).toEqual([502, 503, 200]);
    expect(sleeps).toHaveLength(2);
    expect(sleeps.every((ms) => ms > 0 && ms <= 2_000)).toBe(true);

    const unknown = sha('nope');
    const notFound = await compare.contains(REPO, unknown, S).catch((e: unknown) => e);
    expect(causeText(notFound)).toMatch(/answered 404: Not Found/);
    expect(github.calls.at(-1)!.status).toBe(404);
    expect(sleeps).toHaveLength(2); // not retried

    github.faults.push({ status: 429, headers: { 'retry-after': '60' } });
    const limited = await compare.contains(REPO, A, C).catch((e: unknown) => e);
    expect(causeText(limited)).toMatch(/answered 429.*gave up after 1 attempts/);

    for (let i = 0; i < 5; i += 1) github.faults.push({ status: 500 });
    const down = await compare.contains(REPO, B, C).catch((e: unknown) => e);
    expect(causeText(down)).toMatch(/answered 500.*gave up after 5 attempts/);
    // A commit that failed is refused without asking for FAILED_FOR_MS, then asked again.
    const calls = github.calls.length;
    await expect(compare.contains(REPO, B, X)).rejects.toThrow(
      /answered 500.*gave up after 5 attempts; this commit is not asked about again for \d+ s/,
    );
    expect(github.calls).toHaveLength(calls);
    await sleep(FAILED_FOR_MS);
    expect(await compare.contains(REPO, B, C)).toBe(true);
  });

  it('refuses what is not owner/repo and two full commit ids, before any request', async () => {
    const { compare } = compareWith();
    for (const [repo, base, head] of [
      ['acme', C, S],
      [REPO, 'c0ffee', S],
      [REPO, C, `${S}/../x`],
      ['acme/shop/../../x', C, S],
    ] as const) {
      await expect(compare.contains(repo, base, head)).rejects.toThrow(
        /expected owner\/repo and two full commit ids/,
      );
    }
    expect(github.calls).toHaveLength(0);
  });
});

describeEachStore('promotion by descent over HTTP', (start) => {
  it('a commit staging contains passes, signed with the one that did; others and GitHub down are refused', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const { compare, sleep } = compareWith(async () => TOKEN, 2_000);
    const asked: string[] = [];
    const counted: GitHubCompare = {
      contains: (repo, base, head, caller) => (
        asked.push(`${base}...${head}`),
        compare.contains(repo, base, head, caller)
      ),
    };
    const { url } = await start({ signingKey: privateKey, promote: chain, compare: counted });
    const client = createPlaneClient({ apiUrl: url });
    const job = (commit: string, env: string) => ({
      resource: env === 'staging' ? STAGING : PROD,
      actorDid: `did:web:ci.example:pipelines:${commit.slice(0, 8)}:jobs:${env}`,
      deploy: { repository: REPO, commit },
    });
    try {
      // Staging deployed S, the newest commit; C was merged before it and never went alone.
      expect(await client.lease(job(S, 'staging'))).toMatchObject({ kind: 'granted' });
      await client.release(job(S, 'staging'));
      expect(await client.lease(job(C, 'prod'))).toMatchObject({ kind: 'granted' });
      await client.release(job(C, 'prod'));
      // X is on a branch S does not contain: refused, saying GitHub looked.
      expect(await client.lease(job(X, 'prod'))).toMatchObject({
        kind: 'refused',
        reason: 'not_promoted',
        message: `${REPO}@${X.slice(0, 12)} has not completed a hold on ${STAGING}: deploy it there first (promotion order ${STAGING} -> ${PROD}); GitHub's compare finds it in none of the 1 newest commits that did`,
      });
      // GitHub down: B (which S does contain) is refused all the same, naming GitHub.
      for (let i = 0; i < 5; i += 1) github.faults.push({ status: 500 });
      expect(await client.lease(job(B, 'prod'))).toMatchObject({
        kind: 'refused',
        reason: 'not_promoted',
        message: expect.stringMatching(
          /GitHub could not say whether a commit that completed it contains this one \(GitHub's compare of acme\/shop .* answered 500/,
        ),
      });
      // And once GitHub answers again (B is not asked about again for a while), B passes.
      await sleep(FAILED_FOR_MS);
      expect(await client.lease(job(B, 'prod'))).toMatchObject({ kind: 'granted' });
      await client.release(job(B, 'prod'));
      // The same commit as completed is not asked about; the pairs asked, in order.
      expect(await client.lease(job(S, 'prod'))).toMatchObject({ kind: 'granted' });
      expect(asked).toEqual([`${C}...${S}`, `${X}...${S}`, `${B}...${S}`, `${B}...${S}`]);

      const { bundle, publicKey, entries } = await exportLedger(url);
      const grants = entries.filter((e) => e.kind === 'grant' && e.resource === PROD);
      expect(grants.map((e) => [e.deploy?.commit, e.promotedVia])).toEqual([
        [C, S],
        [B, S],
        [S, undefined],
      ]);
      expect(verifyBundle(bundle, createPublicKey(publicKey), { promote: chain })).toMatchObject({
        count: entries.length,
      });
    } finally {
      await client.close();
    }
  });
});

describe('verify reads promotedVia', () => {
  const e = entryMaker('did:web:ci.example:jobs:prod');
  const stagingDone = (commit: string, n: number) => [
    e({
      resource: STAGING,
      leaseId: `s${n}`,
      fence: n,
      expiresAtMs: 90_000,
      deploy: { repository: REPO, commit },
    }),
    e({ kind: 'release', resource: STAGING, leaseId: `s${n}`, fence: n }),
  ];
  /** The grant on production of commit C, let through as contained in `via`. */
  const prodVia = (via: string) =>
    e({
      leaseId: 'p2',
      fence: 2,
      expiresAtMs: 90_000,
      deploy: { repository: REPO, commit: C },
      promotedVia: via,
    });

  it('accepts a grant via a commit the ledger shows completed, refuses one via a commit it does not', () => {
    e.restart();
    const good = [...stagingDone(S, 1), prodVia(S)];
    expect(() => checkMeaning(good, false, chain)).not.toThrow();
    e.restart();
    // The kernel's word names X, which never completed staging: a forged or broken ledger.
    const forged = [...stagingDone(S, 1), prodVia(X)];
    expect(() => checkMeaning(forged, false, chain)).toThrow(
      `entry 2: grants p2 on ${PROD} to did:web:ci.example:jobs:prod, but ${REPO}@${C.slice(0, 12)} was let through as contained in ${X.slice(0, 12)}, which has not completed a hold on ${STAGING}`,
    );
    e.restart();
    // Completed in another repository is not this one's.
    const elsewhere = [
      e({
        resource: STAGING,
        leaseId: 's1',
        fence: 1,
        expiresAtMs: 90_000,
        deploy: { repository: 'acme/other', commit: S },
      }),
      e({ kind: 'release', resource: STAGING, leaseId: 's1', fence: 1 }),
      prodVia(S),
    ];
    expect(() => checkMeaning(elsewhere, false, chain)).toThrow(/was let through as contained in/);
  });
});

describe('kernel --github-token-file from the committed CLI', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lease-gate-descent-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses bad flags before listening, naming the flag and the form', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const promote = ['--promote', 'staging->production'];
    for (const [args, message] of [
      [['--github-token-file', tokenFile], /^--github-token-file is for the promotion order/],
      [
        [...promote, '--github-api-url', 'https://api.github.com'],
        /^--github-api-url needs --github-token-file/,
      ],
      [
        [...promote, '--github-token-file', tokenFile, '--github-api-url', 'http://github.example'],
        /^Invalid --github-api-url 'http:\/\/github\.example'\. Expected an https:\/\/ URL/,
      ],
      [
        [...promote, '--github-token-file', join(dir, 'missing')],
        /^Cannot read --github-token-file '.*missing': ENOENT/,
      ],
    ] as const) {
      const r = await runCli(['kernel', '--port', '0', ...args], {});
      expect(r, args.join(' ')).toMatchObject({ code: 2, stderr: expect.stringMatching(message) });
      expect(r.stderr).not.toContain(TOKEN);
    }
    writeFileSync(tokenFile, 'two words\n');
    const empty = await runCli(
      ['kernel', '--port', '0', ...promote, '--github-token-file', tokenFile],
      {},
    );
    expect(empty).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/holds no token: expected one line of printable ASCII/),
    });
  });

  it('lets a commit staging contains take production, and says so as it starts', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const kernel = await startKernelProcess(
      [
        '--promote',
        'staging->production',
        '--github-token-file',
        tokenFile,
        '--github-api-url',
        github.apiUrl,
      ],
      {},
    );
    try {
      const env = { INTRAMEDIAL_API_URL: kernel.url };
      const as = (commit: string, job: string) => [
        '--actor-did',
        `did:web:ci.example:jobs:${job}`,
        '--repository',
        REPO,
        '--commit',
        commit,
      ];
      expect(
        await runCli(['acquire', '--resource', STAGING, ...as(S, 'staging')], env),
      ).toMatchObject({ code: 0 });
      expect(
        await runCli(
          ['release', '--resource', STAGING, '--actor-did', 'did:web:ci.example:jobs:staging'],
          env,
        ),
      ).toMatchObject({ code: 0 });
      const early = await runCli(
        ['acquire', '--resource', PROD, ...as(X, 'x'), '--wait-timeout', '0'],
        env,
      );
      expect(early.code).toBe(1);
      expect(early.stderr).toContain(
        "GitHub's compare finds it in none of the 1 newest commits that did",
      );
      expect(await runCli(['acquire', '--resource', PROD, ...as(C, 'prod')], env)).toMatchObject({
        code: 0,
      });
      // Said after the listening line; printed long before the answers above came back.
      expect(kernel.output()).toContain(`descendants too, by GitHub's compare at ${github.apiUrl}`);
      expect(kernel.output()).not.toContain(TOKEN);
      expect(github.calls.map((c) => [c.path, c.status])).toEqual([
        [`/repos/acme/shop/compare/${X}...${S}`, 200],
        [`/repos/acme/shop/compare/${C}...${S}`, 200],
      ]);
    } finally {
      await kernel.stop();
    }
  });
});
