import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelAuth, type KernelAuth } from '../src/cli/kernel-auth.js';
import { causeText } from '../src/errors.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { Ledger } from '../src/ledger/ledger.js';
import { checkMeaning } from '../src/ledger/meaning.js';
import { parsePromotion, promotionChain } from '../src/ledger/promotion.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { jobDidPrefix } from '../src/plane/ci-job.js';
import {
  CIRCLECI_CLAIMS,
  CIRCLECI_ORG_ID,
  SHA,
  startCiIssuer,
  type CiIssuer,
} from './support/fake-issuers.js';
import { RUN_CLAIMS } from './support/fake-oidc.js';
import { exportLedger } from './support/ledger-export.js';

/**
 * One kernel, four issuers (GitHub, GitLab, CircleCI, Buildkite fakes with their real claim
 * shapes), configured by an issuers file and a policy naming each rule's issuer, as
 * `lease-gate kernel --oidc-issuers FILE --policy FILE` reads them. Over HTTP: each CI's job
 * leases as its own job only, under its own issuer's rules, its deploy fields vouched by its
 * token; GitLab's and GitHub's jobs of one mapped repository share the promotion order.
 */

const dir = mkdtempSync(join(tmpdir(), 'lease-gate-ci-issuers-'));
const STAGING = 'lock:deploy/staging';
const PROD = 'lock:deploy/production';
const CIRCLE_PROJECT = CIRCLECI_CLAIMS['oidc.circleci.com/project-id'];
const OTHER_SHA = 'fedcba9876543210fedcba9876543210fedcba98';

let gh: CiIssuer;
let gl: CiIssuer;
let cc: CiIssuer;
let bk: CiIssuer;
let stranger: CiIssuer;
let auth: KernelAuth;
let kernel: RunningKernel;

const write = (name: string, value: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
};

const issuersOf = (overrides: Record<string, unknown> = {}) => ({
  issuers: [
    { name: 'github', kind: 'github', url: gh.url, audience: 'lease-gate', didHost: 'github.com' },
    {
      name: 'gitlab',
      kind: 'gitlab',
      url: gl.url,
      audience: 'lease-gate',
      repositories: { '4201': 'acme/shop' },
    },
    { name: 'circleci', kind: 'circleci', url: cc.url, audience: CIRCLECI_ORG_ID },
    {
      name: 'buildkite',
      kind: 'buildkite',
      url: bk.url,
      audience: 'lease-gate',
      organization: 'acme',
      ...overrides,
    },
  ],
});

const POLICY = {
  rules: [
    {
      name: 'github',
      issuer: 'github',
      resources: ['lock:deploy/*', 'lock:shared/*'],
      claims: { repository: 'acme/shop' },
      refuse: { event_name: 'pull_request*' },
    },
    {
      name: 'gitlab main',
      issuer: 'gitlab',
      resources: ['lock:deploy/*', 'lock:shared/*'],
      claims: { job_project_id: '4201' },
      refuse: { pipeline_source: 'merge_request_event' },
      protectedRef: true,
    },
    {
      name: 'gitlab forks',
      issuer: 'gitlab',
      resources: ['lock:forks/*'],
      claims: { job_project_id: '4201' },
      allowForks: true,
    },
    {
      name: 'circleci',
      issuer: 'circleci',
      resources: ['lock:deploy/*', 'lock:shared/*'],
      claims: { 'oidc.circleci.com/project-id': CIRCLE_PROJECT },
    },
    {
      name: 'buildkite only',
      issuer: 'buildkite',
      resources: ['lock:shared/*', 'lock:bk/*'],
      claims: { pipeline_slug: 'shop' },
    },
  ],
};

beforeAll(async () => {
  [gh, gl, cc, bk, stranger] = await Promise.all([
    startCiIssuer('github'),
    startCiIssuer('gitlab'),
    startCiIssuer('circleci'),
    startCiIssuer('buildkite'),
    startCiIssuer('gitlab'),
  ]);
  auth = await kernelAuth(
    { 'oidc-issuers': write('issuers.json', issuersOf()), policy: write('policy.json', POLICY) },
    undefined,
  );
  const chain = promotionChain([parsePromotion('staging->production')!]);
  if (typeof chain === 'string') throw new Error(chain);
  kernel = await startKernelServer({
    auth: auth.auth,
    promote: chain,
    ledger: new Ledger(generateKeyPairSync('ed25519').privateKey),
    log: () => {},
  });
});

afterAll(async () => {
  await kernel?.close();
  await auth?.close();
  for (const issuer of [gh, gl, cc, bk, stranger]) await issuer?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(what: 'lease' | 'release', token: string, body: unknown) {
  const response = await fetch(`${kernel.url}/api/v1/acp/coordination/${what}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A DID the issuer's job may act as (its prefix plus a segment), from its token's claims. */
function didOf(issuer: CiIssuer, over: Record<string, unknown> = {}, tail = 'deploy') {
  const host = issuer.kind === 'github' ? 'github.com' : new URL(issuer.url).host;
  return `${jobDidPrefix(issuer.kind, { ...issuer.claims, ...over }, host)!}${tail}`;
}

async function leaseAs(
  issuer: CiIssuer,
  resource: string,
  over: Record<string, unknown> = {},
  deploy?: unknown,
) {
  const token = await issuer.token(over);
  const actorDid = didOf(issuer, over);
  const answer = await post('lease', token, { resource, actorDid, ...(deploy ? { deploy } : {}) });
  return { ...answer, release: () => post('release', token, { resource, actorDid }) };
}

async function holder(resource: string, token: string) {
  const response = await fetch(`${kernel.url}/api/v1/acp/coordination/lease?resource=${resource}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await response.json()) as { lease: { holder: string; deploy?: unknown } | null }).lease;
}

describe('a kernel of several issuers', () => {
  it("lets each CI's job lease as its own job, its deploy fields from its token", async () => {
    const expected: Record<string, unknown> = {
      github: {
        repository: 'acme/shop',
        workflow: '.github/workflows/deploy.yml',
        ref: 'refs/heads/main',
      },
      // runUrl: the fake's loopback http URL is no https run URL, so none is recorded.
      gitlab: {
        repository: 'acme/shop',
        workflow: '.gitlab-ci.yml',
        ref: 'refs/heads/main',
        commit: SHA,
        runNumber: 9001,
      },
      circleci: {
        repository: 'acme/shop',
        workflow: CIRCLECI_CLAIMS['oidc.circleci.com/pipeline-definition-id'],
        ref: 'refs/heads/main',
        commit: SHA,
      },
      buildkite: {
        repository: 'acme/shop',
        workflow: 'shop',
        ref: 'refs/heads/main',
        commit: SHA,
        runNumber: 42,
        runUrl: 'https://buildkite.com/acme/shop/builds/42',
      },
    };
    for (const issuer of [gh, gl, cc, bk]) {
      const resource = `lock:shared/${issuer.kind}`;
      // CircleCI's commit is taken as sent (its token names none): sent here.
      const granted = await leaseAs(
        issuer,
        resource,
        {},
        issuer.kind === 'circleci' ? { commit: SHA } : { repository: 'acme/shop' },
      );
      expect(granted.status, JSON.stringify(granted.body)).toBe(200);
      const lease = await holder(resource, await issuer.token());
      expect(lease?.holder).toBe(didOf(issuer));
      expect(lease?.deploy).toEqual(expect.objectContaining(expected[issuer.kind] as object));
      expect((await granted.release()).status).toBe(200);
    }
  });

  it("refuses tokens that are expired, of another audience, signed with another issuer's key, or of an issuer not configured", async () => {
    const did = didOf(gl);
    const refusal = async (token: string) =>
      post('lease', token, { resource: 'lock:shared/x', actorDid: did });
    const expired = await refusal(await gl.token({}, { expiresInS: -600, issuedAtInS: -900 }));
    expect(expired).toMatchObject({ status: 401, body: { reason: 'unauthorized' } });
    expect(String(expired.body.message)).toMatch(/expired/);
    const audience = await refusal(await gl.token({}, { audience: 'someone-else' }));
    expect(audience.status).toBe(401);
    expect(String(audience.body.message)).toMatch(/"aud" claim/);
    // A GitLab-shaped token claiming the GitLab issuer, signed with the CircleCI fake's key.
    const foreign = await refusal(await gl.token({}, { key: cc.fake.current }));
    expect(foreign.status).toBe(401);
    expect(String(foreign.body.message)).toMatch(/key the issuer doesn't publish/);
    const unknown = await refusal(await stranger.token());
    expect(unknown.status).toBe(401);
    expect(String(unknown.body.message)).toMatch(
      /accepts tokens of github \(.*\), gitlab \(.*\), circleci \(.*\), buildkite \(.*\)/,
    );
  });

  it('refuses a forged deploy field, 403 not_your_deploy, and changes nothing', async () => {
    const forged = await leaseAs(gl, 'lock:shared/forged', {}, { commit: OTHER_SHA });
    expect(forged).toMatchObject({ status: 403, body: { reason: 'not_your_deploy' } });
    expect(String(forged.body.message)).toMatch(
      /GitLab job 55501 of pipeline 9001 of acme\/shop: its deploy\.commit is/,
    );
    const repo = await leaseAs(bk, 'lock:shared/forged', {}, { repository: 'acme/other' });
    expect(repo).toMatchObject({ status: 403, body: { reason: 'not_your_deploy' } });
    expect(await holder('lock:shared/forged', await gl.token())).toBeNull();
  });

  it('refuses GitLab merge-request and fork pipelines where the rules do, and an unprotected ref', async () => {
    const mr = await leaseAs(gl, 'lock:shared/mr', { pipeline_source: 'merge_request_event' });
    expect(mr).toMatchObject({ status: 403, body: { reason: 'not_allowed' } });
    expect(String(mr.body.message)).toMatch(
      /rule 2 \("gitlab main"\) refuses lock:shared\/mr to tokens with pipeline_source merge_request_event/,
    );
    // A fork's code (project 999) in a pipeline of acme/shop (4201): refused by the built-in rule.
    const fork = { project_id: '999', project_path: 'mallory/shop', pipeline_source: 'push' };
    const forked = await leaseAs(gl, 'lock:shared/fork', fork);
    expect(forked).toMatchObject({ status: 403, body: { reason: 'not_allowed' } });
    expect(String(forked.body.message)).toMatch(/job_project_id.*a fork/);
    // …unless a rule allows forks explicitly.
    const allowed = await leaseAs(gl, 'lock:forks/review', fork);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    await allowed.release();
    const unprotected = await leaseAs(gl, 'lock:shared/unprotected', { ref_protected: 'false' });
    expect(unprotected).toMatchObject({ status: 403, body: { reason: 'not_allowed' } });
    expect(String(unprotected.body.message)).toMatch(/only from a protected ref/);
  });

  it('refuses a CircleCI SSH rerun', async () => {
    const rerun = await leaseAs(cc, 'lock:shared/ssh', { 'oidc.circleci.com/ssh-rerun': true });
    expect(rerun).toMatchObject({ status: 403, body: { reason: 'not_allowed' } });
    expect(String(rerun.body.message)).toMatch(/oidc\.circleci\.com\/ssh-rerun.*SSH rerun/);
  });

  it("says each issuer at start with the DID host its jobs' DIDs really carry", () => {
    // A host with a port is one DID segment, its colon encoded, as the tokens' DIDs have it.
    const host = new URL(gl.url).host;
    expect(auth.summary).toContain(`(DIDs under did:web:${host.replace(':', '%3A')}:…)`);
    expect(didOf(gl).startsWith(`did:web:${host.replace(':', '%3A')}:gitlab:`)).toBe(true);
  });

  it('refuses an SSH rerun said as the text "true" too, not only as a boolean', async () => {
    for (const said of ['true', 'TRUE']) {
      const rerun = await leaseAs(cc, 'lock:shared/ssh', { 'oidc.circleci.com/ssh-rerun': said });
      expect(rerun, said).toMatchObject({ status: 403, body: { reason: 'not_allowed' } });
      expect(String(rerun.body.message)).toMatch(/oidc\.circleci\.com\/ssh-rerun.*SSH rerun/);
    }
    expect(
      (await leaseAs(cc, 'lock:shared/ssh', { 'oidc.circleci.com/ssh-rerun': 'false' })).status,
    ).toBe(200);
    await (await leaseAs(cc, 'lock:shared/ssh')).release();
  });

  it("refuses a repository its token does not name: no job joins another repository's lane unmapped", async () => {
    // A CircleCI project of no mapping whose origin is no owner/repo: the token names no repository.
    const unnamed = { 'oidc.circleci.com/vcs-origin': 'gitlab.com/evil/sub/shop' };
    for (const resource of [STAGING, 'lock:shared/lane']) {
      const joined = await leaseAs(cc, resource, unnamed, { repository: 'acme/shop' });
      expect(joined, resource).toMatchObject({ status: 403, body: { reason: 'not_your_deploy' } });
      expect(String(joined.body.message)).toMatch(
        /its claims name no repository .*deploy\.repository "acme\/shop" would be believed.*issuer circleci's "repositories"/,
      );
      expect(await holder(resource, await gl.token())).toBeNull();
    }
    // Without a repository it still leases, its other fields as before.
    const plain = await leaseAs(cc, 'lock:shared/lane', unnamed, { ref: 'refs/heads/main' });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    await plain.release();
  });

  it("never lets one issuer's token match another's rule or act as another's DID", async () => {
    // lock:bk/* is in the Buildkite rule only.
    const notAllowed = await leaseAs(gl, 'lock:bk/only');
    expect(notAllowed).toMatchObject({ status: 403, body: { reason: 'not_allowed' } });
    expect(String(notAllowed.body.message)).toMatch(
      /No rule .* with a token of issuer gitlab lease lock:bk\/only/,
    );
    expect((await leaseAs(bk, 'lock:bk/only')).status).toBe(200);
    // A GitLab job naming the GitHub run's DID.
    const token = await gl.token();
    const asGithub = await post('lease', token, {
      resource: 'lock:shared/did',
      actorDid: didOf(gh),
    });
    expect(asGithub).toMatchObject({ status: 403, body: { reason: 'not_your_did' } });
    // A Buildkite token of another organization, though signed by the pinned issuer.
    const evil = await leaseAs(bk, 'lock:shared/evil', {
      organization_slug: 'evil',
      organization_id: 'x',
    });
    expect(evil.status).toBe(401);
    expect(String(evil.body.message)).toMatch(
      /Buildkite organization "evil"; issuer buildkite accepts only acme's/,
    );
  });

  it('counts a commit GitLab took through staging for production from GitHub, when mapped as one repository', async () => {
    const staged = await leaseAs(gl, STAGING, {}, { repository: 'acme/shop' });
    expect(staged.status, JSON.stringify(staged.body)).toBe(200);
    expect((await staged.release()).status).toBe(200);
    const ghProd = { ...RUN_CLAIMS, sha: SHA, run_id: '4343' };
    const prod = await leaseAs(gh, PROD, ghProd, { repository: 'acme/shop', commit: SHA });
    expect(prod.status, JSON.stringify(prod.body)).toBe(200);
    expect((await prod.release()).status).toBe(200);
    const never = await leaseAs(
      gh,
      PROD,
      { ...ghProd, sha: OTHER_SHA, run_id: '4344' },
      { commit: OTHER_SHA },
    );
    expect(never.body).toMatchObject({ reason: 'not_promoted' });
    // CircleCI's commit is only believed: it may not count on a step of the promotion order.
    const circle = await leaseAs(cc, STAGING, {}, { commit: SHA });
    expect(circle).toMatchObject({ status: 403, body: { reason: 'not_your_deploy' } });
    expect(String(circle.body.message)).toMatch(/circleci tokens carry none/);
  });
});

describe('the issuers configuration', () => {
  const refusal = async (issuers: unknown, policy: unknown = POLICY) => {
    try {
      const started = await kernelAuth(
        { 'oidc-issuers': write('i.json', issuers), policy: write('p.json', policy) },
        undefined,
      );
      await started.close();
      return 'accepted';
    } catch (error) {
      return causeText(error);
    }
  };

  it('refuses an unpinned Buildkite issuer at start, in the file and as a flag', async () => {
    const unpinned = issuersOf({ organization: undefined });
    expect(await refusal(unpinned)).toMatch(
      /i\.json: issuers\[3\] \("buildkite"\): a buildkite issuer needs "organization"/,
    );
    await expect(
      kernelAuth(
        {
          'oidc-audience': 'lease-gate',
          'oidc-issuer': ['https://agent.buildkite.com'],
          policy: write('p1.json', { rules: [POLICY.rules[4]] }),
        },
        undefined,
      ),
    ).rejects.toThrow(/its organization pinned.*--oidc-issuers FILE/);
  });

  it('refuses a rule without an issuer when several are configured, an unknown issuer, and a claim of another kind', async () => {
    const anonymous = { ...POLICY.rules[0]!, issuer: undefined };
    expect(await refusal(issuersOf(), { rules: [anonymous] })).toMatch(
      /p\.json: rules\[0\] \("github"\): with several issuers configured \(github, gitlab, circleci, buildkite\) every rule names its "issuer"/,
    );
    expect(
      await refusal(issuersOf(), { rules: [{ ...POLICY.rules[0], issuer: 'jenkins' }] }),
    ).toMatch(/rules\[0\] \("github"\) issuer: "jenkins" is not a configured issuer/);
    expect(
      await refusal(issuersOf(), {
        rules: [{ ...POLICY.rules[1], claims: { repository: 'acme/shop' } }],
      }),
    ).toMatch(
      /rules\[0\] \("gitlab main"\) claims\.repository: not a claim a rule may test on gitlab tokens/,
    );
    expect(
      await refusal(issuersOf(), { rules: [{ ...POLICY.rules[3], protectedRef: true }] }),
    ).toMatch(/protectedRef: circleci tokens do not say/);
    expect(await refusal(issuersOf(), POLICY)).toBe('accepted');
  });
});

describe('the ledger of a kernel of several issuers', () => {
  it('names the issuer of each OIDC grant; verify accepts it and refuses a tampered issuer', async () => {
    const { bundle, publicKey, entries } = await exportLedger(kernel.url, await gh.token());
    const grants = entries.filter((e) => e.kind === 'grant');
    const byIssuer = new Set(grants.map((e) => e.issuer));
    expect(byIssuer).toEqual(new Set([gh.url, gl.url, cc.url, bk.url]));
    const gitlabGrant = grants.find((e) => e.issuer === gl.url)!;
    expect(gitlabGrant.actorDid.startsWith(didOf(gl, {}, ''))).toBe(true);
    expect(verifyBundle(bundle, createPublicKey(publicKey))).toMatchObject({
      count: entries.length,
    });
    // The meaning check verify runs: a GitLab job's grant said to be Buildkite's, or CircleCI's
    // of another org, or an issuer that is no https URL.
    const tampered = (issuer: string) => () =>
      checkMeaning(
        entries.map((e) => (e === gitlabGrant ? { ...e, issuer } : e)),
        false,
      );
    expect(tampered('https://agent.buildkite.com')).toThrow(
      /is not in the namespace of its issuer https:\/\/agent\.buildkite\.com \(did:web:agent\.buildkite\.com:buildkite:/,
    );
    expect(tampered(`https://oidc.circleci.com/org/${CIRCLECI_ORG_ID}`)).toThrow(
      /not in the namespace/,
    );
    expect(tampered('http://gitlab.example.com')).toThrow(/not an https:\/\/ URL/);
    expect(tampered(`${gl.url}x`)).toThrow(/not a URL|not in the namespace/);
    // Relabelled as GitHub's: GitHub's DIDs name any host, but always a run's attempt.
    expect(tampered('https://token.actions.githubusercontent.com')).toThrow(
      /not in the namespace of its issuer https:\/\/token\.actions\.githubusercontent\.com \(did:web:<host>:<owner>:<repo>:actions:runs:/,
    );
    const githubGrant = grants.find((e) => e.issuer === gh.url)!;
    const asGithub = (e: (typeof entries)[number]) =>
      e === githubGrant ? { ...e, issuer: 'https://token.actions.githubusercontent.com' } : e;
    expect(() => checkMeaning(entries.map(asGithub), false)).not.toThrow();
  });
});
