import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeCiTools } from './support/fake-ci-tools.js';
import { SHA, startCiIssuer, type CiIssuer } from './support/fake-issuers.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { exportLedger } from './support/ledger-export.js';
import { PROD } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * The built CLI on a Buildkite job against the built kernel trusting the (fake) Buildkite
 * issuer, pinned to the job's organization: `lease-gate run` asks the agent for its token
 * (a fake `buildkite-agent` first on PATH), and for a fresh one as each runs out while it
 * holds (short-lived tokens, 3 s leases), so renewals go on past the first token's time; the
 * grant records the deploy the token vouches for; no token reaches the output.
 */

let kernel: KernelProcess | undefined;
let buildkite: CiIssuer | undefined;

closeAfterEach(() => [kernel, buildkite]);

describe('lease-gate run on a Buildkite job', () => {
  it('renews with fresh tokens from the agent and gives the lease back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-buildkite-'));
    buildkite = await startCiIssuer('buildkite');
    const issuers = join(dir, 'issuers.json');
    writeFileSync(
      issuers,
      JSON.stringify({
        issuers: [
          {
            name: 'buildkite',
            kind: 'buildkite',
            url: buildkite.url,
            audience: 'lease-gate',
            organization: 'acme',
          },
        ],
      }),
    );
    const policy = join(dir, 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        rules: [
          {
            name: 'shop main',
            issuer: 'buildkite',
            resources: [PROD],
            claims: { pipeline_slug: 'shop', build_branch: 'main' },
          },
        ],
      }),
    );
    kernel = await startKernelProcess([
      '--ttl-ms',
      '3000',
      '--oidc-issuers',
      issuers,
      '--policy',
      policy,
    ]);
    // Each token has 125 s left when it is handed out: the CLI keeps one 5 s at most (it
    // replaces a token two minutes before its expiry), so a 7 s hold needs a second.
    const tools = fakeCiTools();
    const tokens = await Promise.all(
      [1, 2, 3].map(() => buildkite!.token({}, { expiresInS: 125 })),
    );
    tools.setTokens(...tokens);
    const result = await runCli(
      [
        'run',
        '--auth',
        'oidc',
        '--resource',
        PROD,
        '--',
        process.execPath,
        '-e',
        'setTimeout(() => console.log("deployed"), 7000)',
      ],
      {
        PATH: tools.path,
        BUILDKITE: 'true',
        BUILDKITE_AGENT_ACCESS_TOKEN: 'agent-secret',
        BUILDKITE_COMMIT: SHA,
        LEASE_GATE_API_URL: kernel.url,
      },
    );
    expect(result.stderr).not.toMatch(/lost|expired/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('deployed');
    expect(tools.calls().length).toBeGreaterThanOrEqual(2);
    for (const call of tools.calls())
      expect(call).toEqual([
        'buildkite-agent',
        'oidc',
        'request-token',
        '--audience',
        'lease-gate',
      ]);
    for (const token of tokens)
      for (const part of token.split('.'))
        expect(result.stdout + result.stderr).not.toContain(part);

    const { entries } = await exportLedger(kernel.url, tokens[2]);
    const grant = entries.find((e) => e.kind === 'grant');
    expect(grant?.actorDid).toMatch(
      /^did:web:agent\.buildkite\.com:buildkite:acme:shop:builds:42:jobs:0190b8a1-2c3d-4e5f-8a6b-7c8d9e0f1a2b:/,
    );
    // The kernel filled the deploy from the token: the pipeline as repository, its build.
    expect(grant?.deploy).toMatchObject({
      repository: 'acme/shop',
      workflow: 'shop',
      ref: 'refs/heads/main',
      commit: SHA,
      runNumber: 42,
    });
    expect(entries.filter((e) => e.kind === 'release')).toHaveLength(1);
  });
});
