import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMessage } from '../src/errors.js';
import { ciTokenWay } from '../src/lease/ci-tokens.js';
import { cachedToken, tokenClaims } from '../src/lease/oidc-token.js';
import { jobDidPrefix } from '../src/plane/ci-job.js';
import { runMain } from './support/cli-main.js';
import { fakeCiTools } from './support/fake-ci-tools.js';
import { SHA, startCiIssuer, type CiIssuer } from './support/fake-issuers.js';
import { startFakeIssuer, type FakeIssuer } from './support/fake-oidc.js';
import {
  granted,
  isLease,
  isRelease,
  released,
  startScriptedPlane,
  type ScriptedPlane,
} from './support/scripted-plane.js';
import { R } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * The CLI finds its job's own OIDC token on each CI (issue 58): GitLab's id_tokens variable,
 * CircleCI's variable or `circleci run oidc get`, Buildkite's `buildkite-agent oidc
 * request-token` (fake executables first on PATH), GitHub's runner token service; names
 * itself by the token's claims; sends the commit its CI names and lets the kernel fill the
 * rest; `--auth oidc` without a token is a usage error before anything is sent; no token
 * reaches its output. In-process (src/), against a plane that records what it was sent.
 */

let plane: ScriptedPlane | undefined;
const issuers: Partial<Record<'gitlab' | 'circleci' | 'buildkite', CiIssuer>> = {};
let github: FakeIssuer;

beforeAll(async () => {
  for (const kind of ['gitlab', 'circleci', 'buildkite'] as const)
    issuers[kind] = await startCiIssuer(kind);
  github = await startFakeIssuer();
});
afterAll(async () => {
  for (const issuer of Object.values(issuers)) await issuer.close();
  await github.close();
});
closeAfterEach(() => [plane]);

async function grantingPlane() {
  plane = await startScriptedPlane((req) =>
    isRelease(req)
      ? { body: released('lease_1') }
      : { body: granted((req.body as { actorDid: string }).actorDid, 'lease_1', { resource: R }) },
  );
  return plane;
}

const acquire = (url: string, ...more: string[]) => [
  'acquire',
  '--api-url',
  url,
  '--resource',
  R,
  '--wait-timeout',
  '0',
  ...more,
];

/** Neither the token nor any of its three parts is in the text. */
function expectNoToken(text: string, token: string) {
  expect(text).not.toContain(token);
  for (const part of token.split('.')) if (part.length > 8) expect(text).not.toContain(part);
}

/** The one lease request: its bearer, DID and deploy. */
function asked(p: ScriptedPlane) {
  const lease = p.seen.filter(isLease);
  expect(lease).toHaveLength(1);
  const body = lease[0]!.body as { actorDid: string; deploy?: unknown };
  return { bearer: lease[0]!.headers.authorization, did: body.actorDid, deploy: body.deploy };
}

const prefixOf = (kind: 'gitlab' | 'circleci' | 'buildkite', token: string, host = '') =>
  jobDidPrefix(kind, tokenClaims(token)!, host)!;

describe("the CLI finds its job's own token", () => {
  it('GitLab: the id_tokens variable, the DID its claims vouch for, the commit from CI_COMMIT_SHA', async () => {
    const p = await grantingPlane();
    const token = await issuers.gitlab!.token();
    const env = { GITLAB_CI: 'true', LEASE_GATE_ID_TOKEN: token, CI_COMMIT_SHA: SHA.toUpperCase() };
    const result = await runMain(acquire(p.url), env);
    expect(result.code).toBe(0);
    const { bearer, did, deploy } = asked(p);
    expect(bearer).toBe(`Bearer ${token}`);
    const host = new URL(issuers.gitlab!.url).host;
    expect(did.startsWith(prefixOf('gitlab', token, host))).toBe(true);
    expect(did).toMatch(
      /^did:web:127\.0\.0\.1%3A\d+:gitlab:projects:4201:pipelines:9001:jobs:55501:[^:]+$/,
    );
    // Only the commit: the kernel fills (and maps) the rest from the token.
    expect(deploy).toEqual({ commit: SHA });
    expectNoToken(result.out + result.err, token);

    // Another variable, named by --id-token-var; a flag's field is sent beside the commit.
    const q = await grantingPlane();
    const other = await runMain(
      acquire(q.url, '--id-token-var', 'DEPLOY_ID_TOKEN', '--run-number', '9001'),
      { GITLAB_CI: 'true', DEPLOY_ID_TOKEN: token },
    );
    expect(other.code).toBe(0);
    expect(asked(q)).toMatchObject({ bearer: `Bearer ${token}`, deploy: { runNumber: 9001 } });
  });

  it('GitLab: a token of another audience, or none, is said with what to set, exit 2, nothing sent', async () => {
    const p = await grantingPlane();
    const token = await issuers.gitlab!.token();
    const wrong = await runMain(acquire(p.url, '--oidc-audience', 'https://lease.example'), {
      GITLAB_CI: 'true',
      LEASE_GATE_ID_TOKEN: token,
    });
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('aud: https://lease.example');
    expectNoToken(wrong.out + wrong.err, token);
    const none = await runMain(acquire(p.url, '--auth', 'oidc'), { GITLAB_CI: 'true' });
    expect(none.code).toBe(2);
    expect(none.err).toContain('id_tokens: { LEASE_GATE_ID_TOKEN: { aud: lease-gate } }');
    expect(p.seen).toEqual([]);
  });

  it('GitLab: an expired token is said as one GitLab cannot renew', async () => {
    const p = await grantingPlane();
    const token = await issuers.gitlab!.token({}, { expiresInS: -60 });
    const result = await runMain(acquire(p.url), { GITLAB_CI: 'true', LEASE_GATE_ID_TOKEN: token });
    expect(result.code).not.toBe(0);
    expect(result.err).toMatch(
      /GitLab ID token in LEASE_GATE_ID_TOKEN expired at .*cannot renew it/,
    );
    expectNoToken(result.out + result.err, token);
  });

  it("CircleCI: CIRCLE_OIDC_TOKEN_V2 (the org's audience); with --oidc-audience, `circleci run oidc get`", async () => {
    const tools = fakeCiTools();
    const p = await grantingPlane();
    const token = await issuers.circleci!.token();
    const env = {
      CIRCLECI: 'true',
      CIRCLE_OIDC_TOKEN_V2: token,
      CIRCLE_SHA1: SHA,
      PATH: tools.path,
    };
    const result = await runMain(acquire(p.url), env);
    expect(result.code).toBe(0);
    const { bearer, did, deploy } = asked(p);
    expect(bearer).toBe(`Bearer ${token}`);
    expect(did.startsWith(prefixOf('circleci', token))).toBe(true);
    expect(deploy).toEqual({ commit: SHA });
    expect(tools.calls()).toEqual([]);

    const minted = await issuers.circleci!.token({}, { audience: 'lease-gate' });
    tools.setTokens(minted);
    const q = await grantingPlane();
    const asking = await runMain(acquire(q.url, '--oidc-audience', 'lease-gate'), env);
    expect(asking.code).toBe(0);
    expect(asked(q).bearer).toBe(`Bearer ${minted}`);
    expect(tools.calls()).toEqual([
      ['circleci', 'run', 'oidc', 'get', '--claims', '{"aud":"lease-gate"}'],
    ]);
    expectNoToken(result.out + result.err + asking.out + asking.err, token);
    expectNoToken(asking.out + asking.err, minted);
  });

  it('Buildkite: `buildkite-agent oidc request-token --audience lease-gate`, the DID and commit of the job', async () => {
    const tools = fakeCiTools();
    const token = await issuers.buildkite!.token();
    tools.setTokens(token);
    const p = await grantingPlane();
    const env = {
      BUILDKITE: 'true',
      BUILDKITE_AGENT_ACCESS_TOKEN: 'agent-secret',
      BUILDKITE_COMMIT: SHA,
      PATH: tools.path,
    };
    const result = await runMain(acquire(p.url), env);
    expect(result.code).toBe(0);
    const { bearer, did, deploy } = asked(p);
    expect(bearer).toBe(`Bearer ${token}`);
    expect(did).toMatch(
      /^did:web:agent\.buildkite\.com:buildkite:acme:shop:builds:42:jobs:0190b8a1-2c3d-4e5f-8a6b-7c8d9e0f1a2b:[^:]+$/,
    );
    expect(deploy).toEqual({ commit: SHA });
    // One token for the DID and the request: asked once.
    expect(tools.calls()).toEqual([
      ['buildkite-agent', 'oidc', 'request-token', '--audience', 'lease-gate'],
    ]);
    expectNoToken(result.out + result.err, token);
    // BUILDKITE_COMMIT may be HEAD before the agent resolves it: not sent.
    const q = await grantingPlane();
    expect((await runMain(acquire(q.url), { ...env, BUILDKITE_COMMIT: 'HEAD' })).code).toBe(0);
    expect(asked(q).deploy).toEqual({});
  });

  it('Buildkite: a fresh token from the agent before the five minutes are up', async () => {
    const tools = fakeCiTools();
    const first = await issuers.buildkite!.token({}, { expiresInS: 300 });
    const second = await issuers.buildkite!.token({ build_number: 43 }, { expiresInS: 300 });
    tools.setTokens(first, second);
    let now = Date.now();
    const env = {
      BUILDKITE: 'true',
      BUILDKITE_AGENT_ACCESS_TOKEN: 'agent-secret',
      PATH: tools.path,
    };
    const way = ciTokenWay('buildkite', env, { audience: 'plane.example' });
    if (!('source' in way)) throw new Error(way.missing);
    const token = cachedToken(way.source, () => now);
    expect(await token()).toBe(first);
    now += 170_000;
    expect(await token()).toBe(first);
    // Two minutes before its expiry, the agent is asked again.
    now += 15_000;
    expect(await token()).toBe(second);
    expect(tools.calls()).toEqual([
      ['buildkite-agent', 'oidc', 'request-token', '--audience', 'plane.example'],
      ['buildkite-agent', 'oidc', 'request-token', '--audience', 'plane.example'],
    ]);
  });

  it("GitHub Actions: the runner's token service, as the action asks it", async () => {
    const p = await grantingPlane();
    const env = { GITHUB_ACTIONS: 'true', ...github.requestEnv() };
    const result = await runMain(acquire(p.url, '--oidc-audience', 'plane.example'), env);
    expect(result.code).toBe(0);
    expect(github.issued).toHaveLength(1);
    const token = github.issued[0]!;
    expect(asked(p).bearer).toBe(`Bearer ${token}`);
    expect(tokenClaims(token)?.aud).toBe('plane.example');
    expect(asked(p).did).toMatch(
      /^did:web:github\.com:acme:shop:actions:runs:4242:attempts:1:[^:]+$/,
    );
    expectNoToken(result.out + result.err, token);
    // With the runner's variables, the run's DID as the action names it (its job too).
    const q = await grantingPlane();
    const runner = {
      ...env,
      GITHUB_REPOSITORY: 'acme/shop',
      GITHUB_RUN_ID: '4242',
      GITHUB_JOB: 'deploy',
    };
    expect((await runMain(acquire(q.url), runner)).code).toBe(0);
    expect(asked(q).did).toMatch(
      /^did:web:github\.com:acme:shop:actions:runs:4242:attempts:1:jobs:deploy:[^:]+$/,
    );
  });
});

describe('keep (the keeper) off GitHub', () => {
  it("renews with the job's own token of its CI, and stops when its status file goes", async () => {
    const token = await issuers.gitlab!.token();
    const status = join(mkdtempSync(join(tmpdir(), 'lease-gate-keep-ci-')), 'status.json');
    writeFileSync(status, '{"starting":true}');
    const did = `${prefixOf('gitlab', token, new URL(issuers.gitlab!.url).host)}runner`;
    const lease = (expiresAtMs: number) => ({
      id: 'lease_1',
      resource: R,
      holder: did,
      expiresAtMs,
      fence: 1,
    });
    plane = await startScriptedPlane((req) => {
      // The first renewal seen, the job is over: the keeper stops without renewing again.
      if (isLease(req)) rmSync(status, { force: true });
      return isRelease(req)
        ? { body: released('lease_1') }
        : { body: { ok: true, lease: lease(Date.now() + 1_500) } };
    });
    const result = await runMain(
      [
        'keep',
        '--api-url',
        plane.url,
        '--resource',
        R,
        '--actor-did',
        did,
        '--status',
        status,
        '--lease',
        JSON.stringify(lease(Date.now() + 1_500)),
        '--oidc-audience',
        'lease-gate',
      ],
      { GITLAB_CI: 'true', LEASE_GATE_ID_TOKEN: token },
    );
    expect(result.code).toBe(0);
    expect(existsSync(status)).toBe(false);
    const renewals = plane.seen.filter(isLease);
    expect(renewals.length).toBeGreaterThanOrEqual(1);
    for (const renewal of renewals) expect(renewal.headers.authorization).toBe(`Bearer ${token}`);
    expectNoToken(result.out + result.err, token);
  });
});

describe('--auth', () => {
  it('oidc without a token: exit 2 naming what to set on that CI, nothing sent', async () => {
    const p = await grantingPlane();
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{}, /not a job of a CI .*--oidc-token-file FILE or LEASE_GATE_OIDC_TOKEN/],
      [{ GITHUB_ACTIONS: 'true' }, /GitHub Actions: .*permissions: id-token: write/],
      [{ GITLAB_CI: 'true' }, /GitLab CI: .*id_tokens:/],
      [{ CIRCLECI: 'true' }, /CircleCI: CircleCI sets CIRCLE_OIDC_TOKEN_V2/],
      [{ BUILDKITE: 'true' }, /Buildkite: .*BUILDKITE_AGENT_ACCESS_TOKEN/],
    ];
    for (const [env, said] of cases) {
      const result = await runMain(acquire(p.url, '--auth', 'oidc'), {
        ...env,
        LEASE_GATE_KEY: 'k',
      });
      expect(result.code, JSON.stringify(env)).toBe(2);
      expect(result.err).toMatch(said);
    }
    const bad = await runMain(acquire(p.url), { LEASE_GATE_AUTH: 'token' });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(
      "Invalid LEASE_GATE_AUTH (environment) 'token'. Expected 'auto', 'key' or 'oidc'.",
    );
    expect(p.seen).toEqual([]);
  });

  it("auto sends the key when one is set; key never sends the job's token; a given token wins", async () => {
    const token = await issuers.gitlab!.token();
    const gitlab = { GITLAB_CI: 'true', LEASE_GATE_ID_TOKEN: token };
    let p = await grantingPlane();
    expect((await runMain(acquire(p.url), { ...gitlab, LEASE_GATE_KEY: 'the-key' })).code).toBe(0);
    expect(asked(p)).toMatchObject({ bearer: 'Bearer the-key', deploy: undefined });
    p = await grantingPlane();
    expect((await runMain(acquire(p.url, '--auth', 'key'), gitlab)).code).toBe(0);
    // A loopback plane with no key: nothing in place of it.
    expect(asked(p).bearer).toBeUndefined();
    p = await grantingPlane();
    const given = await issuers.circleci!.token();
    const result = await runMain(acquire(p.url, '--auth', 'oidc'), {
      ...gitlab,
      LEASE_GATE_OIDC_TOKEN: given,
      LEASE_GATE_ACTOR_DID: 'did:web:acme.example:agent',
    });
    expect(result.code).toBe(0);
    expect(asked(p)).toMatchObject({
      bearer: `Bearer ${given}`,
      did: 'did:web:acme.example:agent',
    });
  });

  it('a CI tool that fails: its words, nothing token-shaped from them, nothing sent', async () => {
    const tools = fakeCiTools();
    const secret = await issuers.buildkite!.token();
    tools.fail(3, `error: agent refused: ${secret}\nmore`);
    const p = await grantingPlane();
    const env = {
      BUILDKITE: 'true',
      BUILDKITE_AGENT_ACCESS_TOKEN: 'agent-secret',
      PATH: tools.path,
    };
    const result = await runMain(acquire(p.url), env);
    expect(result.code).not.toBe(0);
    expect(result.err).toContain(
      '`buildkite-agent oidc request-token --audience` failed with code 3: error: agent refused: [redacted]',
    );
    expectNoToken(result.out + result.err, secret);
    expect(p.seen).toEqual([]);
    const missing = await runMain(acquire(p.url), { ...env, PATH: '/nonexistent' });
    expect(missing.err).toContain('buildkite-agent is not on PATH');
  });

  it('a refused job token is said as a token refused, not as a key to check', async () => {
    plane = await startScriptedPlane(() => ({
      status: 401,
      body: {
        reason: 'unauthorized',
        message: 'The OIDC token was refused: its "aud" claim is not accepted.',
      },
    }));
    const token = await issuers.gitlab!.token();
    const result = await runMain(acquire(plane.url, '--auth', 'oidc'), {
      GITLAB_CI: 'true',
      LEASE_GATE_ID_TOKEN: token,
    });
    expect(result.code).not.toBe(0);
    expect(result.err).toContain('its "aud" claim is not accepted');
    expect(result.err).toContain("check that the kernel trusts the token's issuer and audience");
    expect(result.err).not.toContain('LEASE_GATE_KEY');
    expectNoToken(result.out + result.err, token);
    await plane.close();
    plane = await startScriptedPlane(() => ({
      status: 403,
      body: { reason: 'not_allowed', message: 'Policy rule 1 ("main") lets x be leased only…' },
    }));
    const policy = await runMain(acquire(plane.url, '--auth', 'oidc'), {
      GITLAB_CI: 'true',
      LEASE_GATE_ID_TOKEN: token,
    });
    expect(policy.err).toContain("check the kernel's policy rules for the token's issuer");
    expect(policy.err).not.toContain('LEASE_GATE_KEY');
  });

  it("a CI tool's escape sequences are escaped in its words, wherever they are printed", async () => {
    const tools = fakeCiTools();
    const secret = await issuers.buildkite!.token();
    tools.fail(1, `\u001b]0;pwned\u0007\u001b[31merror: ${secret} refused\u001b[0m`);
    const env = {
      BUILDKITE: 'true',
      BUILDKITE_AGENT_ACCESS_TOKEN: 'agent-secret',
      PATH: tools.path,
    };
    const way = ciTokenWay('buildkite', env);
    if (!('source' in way)) throw new Error(way.missing);
    const message = await way.source().then(
      () => '',
      (error: unknown) => errorMessage(error),
    );
    expect(message).toContain(
      'failed with code 1: \\u001b]0;pwned\\u0007\\u001b[31merror: [redacted]',
    );
    // eslint-disable-next-line no-control-regex
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expectNoToken(message, secret);
  });
});
