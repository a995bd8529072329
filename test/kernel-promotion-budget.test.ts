import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPARE_LIMITS } from '../src/github/compare-budget.js';
import { FAILED_FOR_MS, createGitHubCompare } from '../src/github/compare.js';
import { createHttpClient, type HttpClient } from '../src/http/client.js';
import { createAuthorizer } from '../src/kernel/auth/authorize.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { parsePromotion, promotionChain } from '../src/ledger/promotion.js';
import { fakeTime } from './support/fake-time.js';
import { startFakeGitHubCompare, type FakeGitHubCompare } from './support/fake-github-compare.js';
import { startFakeIssuer, type FakeIssuer, acmeOidc } from './support/fake-oidc.js';
import { PROD } from './support/names.js';

/**
 * No client can spend the kernel's GitHub quota: every compare call is taken from the
 * caller's budget and the kernel's, at most a few are out at once, and a commit GitHub
 * could not answer about is not asked about again for a while. And under `--promote` a
 * pull request run's hold counts only for the commit its token vouches for. A real kernel
 * on loopback, a fake GitHub counting calls, a fake OIDC issuer.
 */

const STAGING = 'lock:deploy/staging';
const REPO = 'acme/shop';
const GITHUB_TOKEN = 'ghs_compare_token_budget';
const KEY = 'shared-key-budget-1';
const sha = (name: string) => Buffer.from(name).toString('hex').padEnd(40, '0').slice(0, 40);
const ROOT = sha('root');
const P = sha('P');
/** main: ROOT ← P ← M1 ← … ← M20; M1…M20 completed staging, P never went; F1…F40 branch off ROOT. */
const M = Array.from({ length: 20 }, (_, i) => sha(`M${i + 1}`));
const F = Array.from({ length: 40 }, (_, i) => sha(`F${i + 1}`));
const chain = (() => {
  const c = promotionChain([parsePromotion('staging->production')!]);
  if (typeof c === 'string') throw new Error(c);
  return c;
})();

let github: FakeGitHubCompare;
let issuer: FakeIssuer;
let http: HttpClient;
let kernel: RunningKernel;
let time: ReturnType<typeof fakeTime>;

beforeEach(async () => {
  github = await startFakeGitHubCompare(GITHUB_TOKEN);
  github.commit(REPO, ROOT);
  github.commit(REPO, P, [ROOT]);
  M.forEach((m, i) => github.commit(REPO, m, [i ? M[i - 1]! : P]));
  for (const f of F) github.commit(REPO, f, [ROOT]);
  issuer = await startFakeIssuer();
  http = createHttpClient({ env: {} });
  time = fakeTime();
  const compare = createGitHubCompare({
    apiUrl: github.apiUrl,
    http,
    token: async () => GITHUB_TOKEN,
    clock: time.clock,
    sleep: time.sleep,
    wallNow: () => 1_700_000_000_000,
    random: () => 0.5,
  });
  kernel = await startKernelServer({
    auth: createAuthorizer({ key: KEY, oidc: acmeOidc(issuer.url, http) }),
    promote: chain,
    compare,
    log: () => {},
  });
  // Staging completed M1…M20 (M20 the newest): the shared key names them as it likes.
  for (const m of M) {
    const job = { resource: STAGING, actorDid: 'did:web:ci.example:jobs:staging' };
    expect((await lease(KEY, { ...job, deploy: { repository: REPO, commit: m } })).status).toBe(
      200,
    );
    expect((await post('release', KEY, job)).status).toBe(200);
  }
});

afterEach(async () => {
  await kernel.close();
  await http.close();
  await github.close();
  await issuer.close();
});

async function post(what: 'lease' | 'release', bearer: string, body: unknown) {
  const response = await fetch(`${kernel.url}/api/v1/acp/coordination/${what}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const lease = (bearer: string, body: unknown) => post('lease', bearer, body);
const prod = (commit: string, who: string) =>
  lease(KEY, {
    resource: PROD,
    actorDid: `did:web:ci.example:jobs:${who}`,
    deploy: { repository: REPO, commit },
  });

const runOf = async (runId: number, claims: Record<string, unknown>) => ({
  token: await issuer.sign({
    claims: {
      sub: 'repo:acme/shop:pull_request',
      repository: REPO,
      repository_owner: 'acme',
      workflow_ref: 'acme/shop/.github/workflows/deploy.yml@refs/pull/5/merge',
      run_id: String(runId),
      run_number: String(runId),
      run_attempt: '1',
      ...claims,
    },
  }),
  actorDid: `did:web:github.com:acme:shop:actions:runs:${runId}:attempts:1:deploy`,
});

describe("the kernel's GitHub compare budget", () => {
  it('30 asks naming fresh commits make at most the kernel bound of calls, 4 at a time', async () => {
    github.delayMs = 5;
    // Each fresh commit is in none of the 20 staging did: 20 calls each, 600 unbounded.
    const answers = await Promise.all(F.slice(0, 30).map((f, i) => prod(f, `fresh${i}`)));
    expect(answers.every((a) => a.status === 409 && a.body.reason === 'not_promoted')).toBe(true);
    expect(github.calls.length).toBeLessThanOrEqual(COMPARE_LIMITS.kernel.burst);
    expect(github.maxInFlight).toBeLessThanOrEqual(COMPARE_LIMITS.inFlight);
    const spent = answers.filter((a) =>
      String(a.body.message).includes(
        "the kernel's GitHub compare budget for all callers is spent (200 calls, then one every 3 s); try again in 3 s",
      ),
    );
    expect(spent.length).toBeGreaterThanOrEqual(20);
    // Refused at once, not waited for: the budget fills again with time, at its rate.
    await time.sleep(30_000);
    const calls = github.calls.length;
    await prod(F[30]!, 'later');
    expect(github.calls.length - calls).toBe(10);
  });

  it('one caller spending its budget leaves another its own', async () => {
    const greedy = 'did:web:ci.example:jobs:greedy';
    for (const f of F.slice(0, 2)) {
      const answer = await lease(KEY, {
        resource: PROD,
        actorDid: greedy,
        deploy: { repository: REPO, commit: f },
      });
      expect(answer.body.message).toContain("GitHub's compare finds it in none of the 20");
    }
    expect(github.calls).toHaveLength(COMPARE_LIMITS.caller.burst);
    const third = await lease(KEY, {
      resource: PROD,
      actorDid: greedy,
      deploy: { repository: REPO, commit: F[2]! },
    });
    expect(third).toMatchObject({ status: 409, body: { reason: 'not_promoted' } });
    expect(third.body.message).toContain(
      `(the kernel's GitHub compare budget for ${greedy} is spent (40 calls, then one every 30 s); try again in 30 s)`,
    );
    expect(github.calls).toHaveLength(COMPARE_LIMITS.caller.burst);
    // Another caller's check still asks GitHub, and P (which M20 contains) passes.
    const other = await prod(P, 'other');
    expect(other).toMatchObject({ status: 200, body: { ok: true } });
    expect(github.calls.at(-1)!.path).toBe(`/repos/acme/shop/compare/${P}...${M[19]}`);
  });

  it("an OIDC token's caller is its repository: its runs share one budget", async () => {
    const runs = await Promise.all(
      [90, 91, 92].map((id, i) =>
        runOf(id, { event_name: 'push', ref: 'refs/heads/main', sha: F[i]! }),
      ),
    );
    const asked = [];
    for (const [i, run] of runs.entries())
      asked.push(
        await lease(run.token, {
          resource: PROD,
          actorDid: run.actorDid,
          deploy: { repository: REPO, commit: F[i]! },
        }),
      );
    expect(asked.map((a) => a.status)).toEqual([409, 409, 409]);
    expect(asked[1]!.body.message).toContain("GitHub's compare finds it in none of the 20");
    expect(asked[2]!.body.message).toContain(
      "the kernel's GitHub compare budget for the repository acme/shop is spent (40 calls",
    );
    expect(github.calls).toHaveLength(COMPARE_LIMITS.caller.burst);
  });

  it('a commit GitHub could not answer about is not asked about again for a while', async () => {
    const unknown = sha('unknown');
    const first = await prod(unknown, 'a');
    expect(first.body.message).toMatch(/answered 404: Not Found/);
    expect(github.calls).toHaveLength(1);
    const again = await prod(unknown, 'b');
    expect(again.body.message).toMatch(
      /answered 404: Not Found; this commit is not asked about again for 60 s\)/,
    );
    expect(github.calls).toHaveLength(1);
    // GitHub down: five attempts once, not five per request.
    for (let i = 0; i < 5; i += 1) github.faults.push({ status: 502 });
    const down = await prod(F[0]!, 'd');
    expect(down.body.message).toMatch(/answered 502.*gave up after 5 attempts/);
    const calls = github.calls.length;
    expect((await prod(F[0]!, 'e')).body.message).toMatch(/gave up after 5 attempts; this commit/);
    expect(github.calls).toHaveLength(calls);
    expect(calls).toBe(6);
    // Past the bound it is asked again.
    await time.sleep(FAILED_FOR_MS);
    expect((await prod(unknown, 'f')).body.message).toMatch(/answered 404: Not Found\)/);
    expect(github.calls).toHaveLength(calls + 1);
  });
});

describe("under --promote, a pull request run's hold counts only for the commit its token vouches for", () => {
  const MERGE = sha('merge-of-pr-5');
  const HEAD = F[35]!;
  it('refuses its head commit on a step of the order; its merge commit is the one that counts', async () => {
    const pr = await runOf(77, {
      event_name: 'pull_request',
      ref: 'refs/pull/5/merge',
      sha: MERGE,
    });
    const asking = (resource: string, commit: string) =>
      lease(pr.token, { resource, actorDid: pr.actorDid, deploy: { repository: REPO, commit } });
    const head = await asking(STAGING, HEAD);
    expect(head).toMatchObject({ status: 403, body: { reason: 'not_your_deploy' } });
    expect(head.body.message).toContain(
      `its deploy.commit is "${MERGE}", not "${HEAD}". On this kernel a run's deploy fields come from its OIDC token, a pull request run's commit too on a resource of the promotion order`,
    );
    // Off the order the head commit is taken as sent, as before.
    expect((await asking('lock:preview', HEAD)).status).toBe(200);
    await post('release', pr.token, { resource: 'lock:preview', actorDid: pr.actorDid });
    // The commit it does vouch for completes staging.
    expect(await asking(STAGING, MERGE)).toMatchObject({ status: 200 });
    await post('release', pr.token, { resource: STAGING, actorDid: pr.actorDid });
    // So the head never completed staging: a push run of it is refused production.
    const push = await runOf(78, { event_name: 'push', ref: 'refs/heads/main', sha: HEAD });
    const production = await lease(push.token, {
      resource: PROD,
      actorDid: push.actorDid,
      deploy: { repository: REPO, commit: HEAD },
    });
    expect(production).toMatchObject({ status: 409, body: { reason: 'not_promoted' } });
    expect(production.body.message).toContain(
      `${REPO}@${HEAD.slice(0, 12)} has not completed a hold on ${STAGING}`,
    );
  });
});
