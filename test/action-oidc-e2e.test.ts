import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeIssuer, type FakeIssuer } from './support/fake-oidc.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { runStep } from './support/runner.js';
import { PROD } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';
import { writePolicy } from './support/policy.js';

/**
 * Keyless, end to end: the built kernel started with --oidc-issuer (a fake
 * issuer on loopback) and a policy, the built action's main, keeper and post
 * with no key at all, only the runner's token request service
 * (ACTIONS_ID_TOKEN_REQUEST_URL/TOKEN). Another run's token cannot touch the lease.
 */

let issuer: FakeIssuer | undefined;
let kernel: KernelProcess | undefined;

closeAfterEach(() => [kernel, issuer]);

async function start() {
  issuer = await startFakeIssuer();
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-oidc-e2e-'));
  const policy = writePolicy(dir, [
    {
      name: 'production from main',
      resources: [PROD],
      claims: { repository: 'acme/shop', ref: 'refs/heads/main' },
    },
  ]);
  // Short leases, so a keeper that did not renew would lose it within the test (3 s: a
  // keeper started on a machine busy with other work gets three renewals' time, not two).
  kernel = await startKernelProcess([
    '--ttl-ms',
    '3000',
    '--oidc-issuer',
    issuer.url,
    '--oidc-audience',
    'lease-gate',
    '--oidc-did-host',
    'github.com',
    '--policy',
    policy,
  ]);
  return { issuer, kernel, dir };
}

async function holder(url: string, token: string): Promise<unknown> {
  const answer = await fetch(`${url}/api/v1/acp/coordination/lease?resource=${PROD}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await answer.json()) as { lease: { holder: string; id: string } | null }).lease;
}

const until = async (check: () => boolean, limitMs = 30_000) => {
  for (const end = Date.now() + limitMs; !check() && Date.now() < end;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
};

describe('keyless, with GitHub OIDC', () => {
  it('acquires, keeps and releases with the job’s own tokens; another run’s token cannot release or renew', async () => {
    const { issuer, kernel, dir } = await start();
    const tokenEnv = issuer.requestEnv();
    const main = await runStep('main', {
      inputs: { 'api-url': kernel.url },
      env: tokenEnv,
      tempDir: dir,
    });
    expect(main.stderr).toBe('');
    expect(main.code).toBe(0);
    expect(main.outputs.acquired).toBe('true');
    const own = main.outputs['actor-did']!;
    expect(own).toMatch(/^did:web:github\.com:acme:shop:actions:runs:4242:attempts:1:jobs:deploy:/);
    const leaseId = main.outputs['lease-id'];

    // The keeper asked the runner's token service for its own token and renews with it past the 3 s lease.
    expect(await until(() => issuer.issued.length >= 2)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    const reader = await issuer.sign();
    expect(await holder(kernel.url, reader)).toMatchObject({ holder: own, id: leaseId });

    // The replayed-DID attack of issue 22: run 777 names the holder's DID.
    const other = { LEASE_GATE_OIDC_TOKEN: await issuer.sign({ claims: { run_id: '777' } }) };
    const common = ['--api-url', kernel.url, '--resource', PROD, '--actor-did', own];
    const released = await runCli(['release', ...common], other);
    expect(released.code).toBe(1);
    expect(released.stdout).not.toMatch(/released/i);
    const renewed = await runCli(['acquire', ...common, '--wait-timeout', '0'], other);
    expect(renewed.code).toBe(1);
    expect(await holder(kernel.url, reader)).toMatchObject({ holder: own, id: leaseId });

    const post = await runStep('post', { env: tokenEnv, state: main.state, tempDir: dir });
    expect(post.code).toBe(0);
    expect(post.stdout).toContain(`Released ${PROD} (lease ${leaseId})`);
    expect(await holder(kernel.url, reader)).toBeNull();

    // No token reached a log, an output or the state (the runner masks what setSecret names, too).
    expect(issuer.issued.length).toBeGreaterThanOrEqual(3);
    const unmasked = (text: string) =>
      text
        .split('\n')
        .filter((line) => !line.startsWith('::add-mask::'))
        .join('\n');
    const written = [
      unmasked(main.stdout),
      unmasked(post.stdout),
      JSON.stringify(main.state),
      JSON.stringify(main.outputs),
    ].join('\n');
    for (const token of issuer.issued) expect(written).not.toContain(token.split('.')[2]);
    expect(main.stdout).toContain('::add-mask::');
  });

  it('fails closed with neither a key nor id-token: write, before asking anything', async () => {
    const { kernel, dir } = await start();
    const main = await runStep('main', { inputs: { 'api-url': kernel.url }, tempDir: dir });
    expect(main.code).toBe(1);
    expect(main.stdout).toMatch(/::error::.*No plane key/);
    expect(kernel.output()).not.toMatch(/ grant /);
  });
});
