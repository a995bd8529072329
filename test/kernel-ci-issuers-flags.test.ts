import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelAuth, type KernelAuth } from '../src/cli/kernel-auth.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { jobDidPrefix } from '../src/plane/ci-job.js';
import { createPlaneClient } from '../src/plane/client.js';
import { APPROVE_BREAK_GLASS_PATH } from '../src/plane/schema.js';
import { SHA, startCiIssuer, type CiIssuer } from './support/fake-issuers.js';

/**
 * The other ways to name issuers: `--oidc-issuer KIND=URL` flags (a self-managed GitLab
 * beside a GitHub Enterprise Server, both on loopback), and a custom issuer (a Jenkins-like
 * one) in the issuers file with its DID template, deploy mapping and claims.
 */

const dir = mkdtempSync(join(tmpdir(), 'lease-gate-ci-issuers-flags-'));
let github: CiIssuer;
let gitlab: CiIssuer;
let jenkins: CiIssuer;
const started: Array<{ auth: KernelAuth; kernel: RunningKernel }> = [];

const write = (name: string, value: unknown) => {
  writeFileSync(join(dir, name), JSON.stringify(value));
  return join(dir, name);
};

beforeAll(async () => {
  [github, gitlab, jenkins] = await Promise.all([
    startCiIssuer('github'),
    startCiIssuer('gitlab'),
    startCiIssuer('custom'),
  ]);
});
afterAll(async () => {
  for (const { auth, kernel } of started) {
    await kernel.close();
    await auth.close();
  }
  for (const issuer of [github, gitlab, jenkins]) await issuer?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ADMIN = 'admin-key-ci-issuers-flags';

async function start(flags: Parameters<typeof kernelAuth>[0]) {
  const auth = await kernelAuth(flags, undefined);
  const kernel = await startKernelServer({
    auth: auth.auth,
    adminKey: ADMIN,
    approverOidc: ['*'],
    log: () => {},
  });
  started.push({ auth, kernel });
  return { auth, kernel };
}

async function lease(kernel: RunningKernel, token: string, body: unknown) {
  const response = await fetch(`${kernel.url}/api/v1/acp/coordination/lease`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('issuers by flag', () => {
  it('takes gitlab=URL beside a URL of no known CI (a GitHub Enterprise Server)', async () => {
    const policy = write('flags-policy.json', {
      rules: [
        {
          name: 'gh',
          issuer: 'github',
          resources: ['lock:*'],
          claims: { repository: 'acme/shop' },
        },
        { name: 'gl', issuer: 'gitlab', resources: ['lock:*'], claims: { job_project_id: '4201' } },
      ],
    });
    const { auth, kernel } = await start({
      'oidc-audience': 'lease-gate',
      'oidc-issuer': [github.url, `gitlab=${gitlab.url}`],
      policy,
    });
    expect(auth.summary).toContain(`github (github) ${github.url} for audience lease-gate`);
    expect(auth.summary).toContain(`gitlab (gitlab) ${gitlab.url} for audience lease-gate`);
    const host = new URL(gitlab.url).host;
    const gl = `${jobDidPrefix('gitlab', gitlab.claims, host)!}deploy`;
    expect(
      (await lease(kernel, await gitlab.token(), { resource: 'lock:a', actorDid: gl })).status,
    ).toBe(200);
    // The GHES's DIDs carry its own host (no --oidc-did-host).
    const gh = `${jobDidPrefix('github', github.claims, new URL(github.url).host)!}deploy`;
    expect(
      (await lease(kernel, await github.token(), { resource: 'lock:b', actorDid: gh })).status,
    ).toBe(200);
    // Break-glass approvers stay GitHub runs: a GitLab job's token, whatever its sub, is refused.
    const admin = createPlaneClient({ apiUrl: kernel.url });
    try {
      await admin.breakGlass(
        { resource: 'lock:z', actorDid: gh, reason: 'hotfix', by: 'alice' },
        ADMIN,
      );
    } finally {
      await admin.close();
    }
    const approval = await fetch(`${kernel.url}${APPROVE_BREAK_GLASS_PATH}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await gitlab.token()}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ resource: 'lock:z', actorDid: gh }),
    });
    expect(approval.status).toBe(403);
    expect(((await approval.json()) as { message: string }).message).toMatch(
      /A gitlab job's token \(issuer gitlab\) may not approve a break-glass: OIDC approvers are GitHub Actions runs/,
    );
  });

  it('refuses a KIND it does not know, and a Buildkite or custom issuer by flag', async () => {
    const policy = write('p.json', {
      rules: [{ name: 'x', resources: ['*'], claims: { sub: '*' } }],
    });
    const flags = (issuer: string) => ({
      'oidc-audience': 'lease-gate',
      'oidc-issuer': [issuer],
      policy,
    });
    await expect(kernelAuth(flags('jenkins=https://ci.example.com'), undefined)).rejects.toThrow(
      /Invalid --oidc-issuer 'jenkins=https:\/\/ci\.example\.com': expected \[KIND=\]URL/,
    );
    await expect(kernelAuth(flags('custom=https://ci.example.com'), undefined)).rejects.toThrow(
      /a custom issuer needs a DID template and a claim mapping; configure it in an issuers file \(--oidc-issuers FILE/,
    );
  });
});

describe('a custom issuer', () => {
  it('acts by its DID template, its deploy mapping and the claims it lists', async () => {
    const issuers = write('custom.json', {
      issuers: [
        {
          name: 'jenkins',
          kind: 'custom',
          url: jenkins.url,
          audience: 'lease-gate',
          did: 'did:web:jenkins.example.com:{job}:builds:{build_number}:',
          deploy: { commit: 'commit', runNumber: 'build_number' },
          claims: ['job', 'branch'],
        },
      ],
    });
    const policy = write('custom-policy.json', {
      rules: [{ name: 'shop', resources: ['lock:*'], claims: { job: 'shop', branch: 'main' } }],
    });
    const { kernel } = await start({ 'oidc-issuers': issuers, policy });
    const actorDid = 'did:web:jenkins.example.com:shop:builds:17:deploy';
    const token = await jenkins.token();
    expect(
      (await lease(kernel, token, { resource: 'lock:c', actorDid, deploy: { commit: SHA } }))
        .status,
    ).toBe(200);
    const forged = await lease(kernel, token, {
      resource: 'lock:d',
      actorDid,
      deploy: { runNumber: 18 },
    });
    expect(forged).toMatchObject({ status: 403, body: { reason: 'not_your_deploy' } });
    const other = await lease(kernel, token, {
      resource: 'lock:e',
      actorDid: 'did:web:jenkins.example.com:shop:builds:16:x',
    });
    expect(other).toMatchObject({ status: 403, body: { reason: 'not_your_did' } });
    const branch = await lease(kernel, await jenkins.token({ branch: 'dev' }), {
      resource: 'lock:f',
      actorDid,
    });
    expect(branch).toMatchObject({ status: 403, body: { reason: 'not_allowed' } });
    // A claim the issuer does not list is a typo, refused at start.
    const typo = write('typo.json', {
      rules: [{ name: 't', resources: ['*'], claims: { jobb: 'shop' } }],
    });
    await expect(kernelAuth({ 'oidc-issuers': issuers, policy: typo }, undefined)).rejects.toThrow(
      /typo\.json: rules\[0\] \("t"\) claims\.jobb: not a claim a rule may test on custom tokens; expected one of sub, job, branch/,
    );
  });
});
