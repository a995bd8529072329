import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobDidPrefix } from '../src/plane/ci-job.js';
import { tokenClaims } from '../src/lease/oidc-token.js';
import { CIRCLECI_ORG_ID, SHA, startCiIssuer, type CiIssuer } from './support/fake-issuers.js';
import { startFakeIssuer, type FakeIssuer } from './support/fake-oidc.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { exportLedger } from './support/ledger-export.js';
import { runStep } from './support/runner.js';
import { PROD } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';
import { until } from './support/wait.js';

/**
 * The mixed run of issue 58: a GitLab job and a CircleCI job (the built CLI's `lease-gate run`,
 * each with its CI's environment and token and no key) and a GitHub job (the built action's
 * main and post, with the runner's token service) contend for one resource on one kernel that
 * trusts three issuers (an issuers file) under a policy with a rule per issuer. They hold in
 * the order they asked, one at a time; the ledger names each grant's issuer, and `verify`
 * accepts its export.
 */

let kernel: KernelProcess | undefined;
let github: FakeIssuer | undefined;
let gitlab: CiIssuer | undefined;
let circleci: CiIssuer | undefined;

closeAfterEach(() => [kernel, github, gitlab, circleci]);

/** A `lease-gate run` of the built CLI, its output gathered as it comes. */
function cliRun(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['dist/cli/index.js', 'run', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const job = { stdout: '', stderr: '', code: undefined as number | null | undefined };
  child.stdout.on('data', (c: Buffer) => (job.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (job.stderr += c.toString()));
  const done = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve((job.code = code))),
  );
  return { job, done };
}

async function start(dir: string) {
  github = await startFakeIssuer();
  gitlab = await startCiIssuer('gitlab');
  circleci = await startCiIssuer('circleci');
  const project = circleci.claims['oidc.circleci.com/project-id'] as string;
  const issuers = join(dir, 'issuers.json');
  writeFileSync(
    issuers,
    JSON.stringify({
      issuers: [
        {
          name: 'github',
          kind: 'github',
          url: github.url,
          audience: 'lease-gate',
          didHost: 'github.com',
        },
        {
          name: 'gitlab',
          kind: 'gitlab',
          url: gitlab.url,
          audience: 'lease-gate',
          repositories: { '4201': 'acme/shop' },
        },
        {
          name: 'circleci',
          kind: 'circleci',
          url: circleci.url,
          audience: CIRCLECI_ORG_ID,
          repositories: { [project]: 'acme/shop' },
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
          name: 'GitHub main',
          issuer: 'github',
          resources: [PROD],
          claims: { repository: 'acme/shop', ref: 'refs/heads/main' },
        },
        {
          name: 'GitLab main',
          issuer: 'gitlab',
          resources: [PROD],
          claims: { project_path: 'acme/shop', ref_path: 'refs/heads/main' },
          protectedRef: true,
        },
        {
          name: 'CircleCI main',
          issuer: 'circleci',
          resources: [PROD],
          claims: { 'oidc.circleci.com/vcs-ref': 'refs/heads/main' },
        },
      ],
    }),
  );
  kernel = await startKernelProcess(['--oidc-issuers', issuers, '--policy', policy]);
  return { github, gitlab, circleci, kernel };
}

describe('a GitLab, a CircleCI and a GitHub job on one kernel', () => {
  it('hold one at a time in the order they asked; the ledger names each issuer and verifies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-ci-mixed-'));
    const { github, gitlab, circleci, kernel } = await start(dir);
    const common = { LEASE_GATE_API_URL: kernel.url };
    const gitlabToken = await gitlab.token();
    const circleToken = await circleci.token();
    const gate = join(dir, 'gitlab-may-finish');
    const hold = `console.log("holding"); const t = setInterval(() => { if (require("node:fs").existsSync(${JSON.stringify(gate)})) { clearInterval(t); console.log("done"); } }, 50)`;

    // 1. The GitLab job takes the lease and holds it until the test lets it finish.
    const first = cliRun(
      ['--auth', 'oidc', '--resource', PROD, '--', process.execPath, '-e', hold],
      {
        ...common,
        GITLAB_CI: 'true',
        LEASE_GATE_ID_TOKEN: gitlabToken,
        CI_COMMIT_SHA: SHA,
      },
    );
    const context = () => `gitlab: ${first.job.stderr}\nkernel: ${kernel.output()}`;
    await until('the GitLab job to hold', () => first.job.stdout.includes('holding'), { context });

    // 2. The CircleCI job asks, and waits.
    const second = cliRun(
      [
        '--auth',
        'oidc',
        '--resource',
        PROD,
        '--',
        process.execPath,
        '-e',
        'console.log("circleci deployed")',
      ],
      {
        ...common,
        CIRCLECI: 'true',
        CIRCLE_OIDC_TOKEN_V2: circleToken,
        CIRCLE_SHA1: SHA,
      },
    );
    await until('the CircleCI job to wait', () => second.job.stderr.includes('is held by'), {
      context: () => `circleci: ${second.job.stderr}`,
    });

    // 3. The GitHub job (the action) asks third, and waits behind both.
    const tokenEnv = github.requestEnv();
    const main = runStep('main', {
      inputs: { 'api-url': kernel.url, resource: PROD },
      env: tokenEnv,
      tempDir: dir,
    });
    const reader = { LEASE_GATE_OIDC_TOKEN: await github.sign() };
    await until(
      'two jobs in the queue',
      async () => {
        const status = await runCli(
          ['status', '--api-url', kernel.url, '--resource', PROD, '--json'],
          reader,
        );
        const queue = (JSON.parse(status.stdout || '{}') as { queue?: unknown[] | null }).queue;
        return (queue?.length ?? 0) >= 2;
      },
      { timeoutMs: 60_000, everyMs: 200, context },
    );

    // 4. GitLab finishes: CircleCI holds next, runs, gives it back; then the GitHub job holds.
    writeFileSync(gate, '');
    expect(await first.done).toBe(0);
    expect(await second.done).toBe(0);
    expect(second.job.stdout).toContain('circleci deployed');
    const granted = await main;
    expect(granted.code).toBe(0);
    expect(granted.outputs.acquired).toBe('true');
    const post = await runStep('post', { env: tokenEnv, state: granted.state, tempDir: dir });
    expect(post.code).toBe(0);

    // No token in any job's output.
    const written = [first.job.stdout, first.job.stderr, second.job.stdout, second.job.stderr].join(
      '\n',
    );
    for (const token of [gitlabToken, circleToken]) {
      for (const part of token.split('.')) expect(written).not.toContain(part);
    }

    // 5. The ledger: grants and releases alternate, in the order asked, each grant's issuer named.
    // Read with a GitHub job's token: on this kernel every route wants a credential.
    const { entries } = await exportLedger(kernel.url, reader.LEASE_GATE_OIDC_TOKEN);
    const holds = entries.filter((e) => e.kind === 'grant' || e.kind === 'release');
    expect(holds.map((e) => e.kind)).toEqual([
      'grant',
      'release',
      'grant',
      'release',
      'grant',
      'release',
    ]);
    const grants = holds.filter((e) => e.kind === 'grant') as Array<{
      holder?: string;
      actorDid?: string;
      issuer?: string;
      deploy?: unknown;
    }>;
    const holder = (g: (typeof grants)[number]) => g.holder ?? g.actorDid ?? '';
    const host = new URL(gitlab.url).host;
    expect(
      holder(grants[0]!).startsWith(jobDidPrefix('gitlab', tokenClaims(gitlabToken)!, host)!),
    ).toBe(true);
    expect(
      holder(grants[1]!).startsWith(jobDidPrefix('circleci', tokenClaims(circleToken)!, '')!),
    ).toBe(true);
    expect(holder(grants[2]!)).toBe(granted.outputs['actor-did']);
    // The GitLab grant's deploy came from its token, its project mapped to the one repository.
    expect(grants[0]!.deploy).toMatchObject({
      repository: 'acme/shop',
      commit: SHA,
      ref: 'refs/heads/main',
    });
    expect(grants[1]!.deploy).toMatchObject({ repository: 'acme/shop', commit: SHA });

    const out = join(dir, 'ledger.json');
    // `ledger export` sends LEASE_GATE_KEY as its bearer: here, that token.
    const exported = await runCli(['ledger', 'export', '--url', kernel.url, '--out', out], {
      LEASE_GATE_KEY: reader.LEASE_GATE_OIDC_TOKEN,
    });
    expect(exported).toMatchObject({
      code: 0,
    });
    expect(existsSync(`${out}.pub`)).toBe(true);
    const verified = await runCli(['verify', out, '--public-key', `${out}.pub`]);
    expect(verified).toMatchObject({ code: 0, stdout: expect.stringMatching(/^OK /) });
    // Each grant names the issuer of the token it was asked with.
    expect(grants.map((g) => g.issuer)).toEqual([gitlab.url, circleci.url, github.url]);
  });
});
