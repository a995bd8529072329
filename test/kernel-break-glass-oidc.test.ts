import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/http/client.js';
import { createAuthorizer } from '../src/kernel/auth/authorize.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { Ledger } from '../src/ledger/ledger.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { APPROVE_BREAK_GLASS_PATH, KERNEL_RESOURCES_PATH } from '../src/plane/schema.js';
import { createPlaneClient } from '../src/plane/client.js';
import { RUN_CLAIMS, startFakeIssuer, type FakeIssuer, acmeOidc } from './support/fake-oidc.js';
import { runCli, startKernelProcess } from './support/kernel-process.js';
import { exportLedger } from './support/ledger-export.js';
import { PROD } from './support/names.js';
import { writePolicy } from './support/policy.js';

/**
 * An OIDC identity as the second break-glass approver (`--approver-oidc PATTERN`): a token
 * the kernel verifies, whose `sub` matches, approves a pending pass, named `oidc:<sub>` on
 * the ledger; any other sub is refused 403, a bad token 401, any run of the job's repository 409
 * `same_operator`, each changing nothing. Over HTTP and from the committed CLI, against a
 * fake issuer on loopback.
 */

const ADMIN = 'admin-key-oidc-approver';
const APPROVER_KEY = 'approver-key-oidc-approver';
const OPS_SUB = 'repo:acme/ops:environment:break-glass';
/** The job the pass lets through: run 4242 of acme/shop (RUN_CLAIMS). */
const HOTFIX = 'did:web:github.com:acme:shop:actions:runs:4242:attempts:1:jobs:deploy';
const OPS_CLAIMS = { ...RUN_CLAIMS, sub: OPS_SUB, repository: 'acme/ops', run_id: '777' };

let issuer: FakeIssuer;
let kernel: RunningKernel;
const http = createHttpClient({ env: {} });

beforeAll(async () => {
  issuer = await startFakeIssuer();
  kernel = await startKernelServer({
    auth: createAuthorizer({ oidc: acmeOidc(issuer.url, http) }),
    adminKey: ADMIN,
    approverKey: APPROVER_KEY,
    // The shop's production environment too: a misconfiguration the same-run check still guards.
    approverOidc: [OPS_SUB, 'repo:acme/shop:environment:*'],
    ledger: new Ledger(generateKeyPairSync('ed25519').privateKey),
    log: () => {},
  });
});

afterAll(async () => {
  await kernel?.close();
  await http.close();
  await issuer?.close();
});

async function approve(bearer: string, body: Record<string, unknown>) {
  const res = await fetch(`${kernel.url}${APPROVE_BREAK_GLASS_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function passOf(resource: string) {
  // This kernel asks every reader for a token: read as the shop's run.
  const res = await fetch(`${kernel.url}${KERNEL_RESOURCES_PATH}?detail=1`, {
    headers: { authorization: `Bearer ${await issuer.sign({ claims: RUN_CLAIMS })}` },
  });
  const body = (await res.json()) as {
    resources?: Array<{ resource: string; breakGlass?: Record<string, unknown> }>;
  };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.resources?.find((r) => r.resource === resource)?.breakGlass;
}

describe('an OIDC identity approves a break-glass', () => {
  it('approves with a matching token, named oidc:<sub>; refuses others and changes nothing', async () => {
    const admin = createPlaneClient({ apiUrl: kernel.url });
    const job = createPlaneClient({
      apiUrl: kernel.url,
      bearer: async () => issuer.sign({ claims: RUN_CLAIMS }),
    });
    try {
      await admin.freeze({ resource: PROD, reason: 'release freeze', by: 'alice' }, ADMIN);
      const opened = await admin.breakGlass(
        { resource: PROD, actorDid: HOTFIX, reason: 'CVE hotfix', by: 'alice' },
        ADMIN,
      );
      expect(opened).toMatchObject({ pending: true });
      const body = { resource: PROD, actorDid: HOTFIX };

      // Another repository's token verifies, but its sub is no approver's.
      const other = await issuer.sign({
        claims: { ...RUN_CLAIMS, sub: 'repo:acme/web:ref:refs/heads/main', run_id: '99' },
      });
      expect(await approve(other, body)).toMatchObject({
        status: 403,
        body: {
          reason: 'forbidden',
          message: expect.stringContaining(`an OIDC token whose sub matches ${OPS_SUB}`),
        },
      });
      // A token for another audience, or from a key the issuer does not publish: 401.
      const foreign = await issuer.sign({ claims: OPS_CLAIMS, audience: 'something-else' });
      expect((await approve(foreign, body)).status).toBe(401);
      const forged = await issuer.sign({ claims: OPS_CLAIMS, key: await issuer.stranger() });
      expect((await approve(forged, body)).status).toBe(401);
      // The job's own run (its sub matches the second pattern), its re-run, another run of
      // its repository, or the repository spelled in other case: not its own approver.
      for (const claims of [
        RUN_CLAIMS,
        { ...RUN_CLAIMS, run_attempt: '2' },
        { ...RUN_CLAIMS, run_id: '4243' },
        { ...RUN_CLAIMS, repository: 'ACME/Shop' },
      ]) {
        expect(
          await approve(await issuer.sign({ claims }), body),
          JSON.stringify(claims),
        ).toMatchObject({
          status: 409,
          body: { reason: 'same_operator' },
        });
      }
      // The token names the approver: a `by` beside it is refused.
      const ops = await issuer.sign({ claims: OPS_CLAIMS });
      expect(await approve(ops, { ...body, by: 'mallory' })).toMatchObject({
        status: 400,
        body: { reason: 'bad_request', message: expect.stringMatching(/^by: an OIDC approver/) },
      });
      // Nothing of that changed the pass, and the frozen job is still held back.
      expect(await passOf(PROD)).toMatchObject({ pending: true });
      expect(await job.lease({ resource: PROD, actorDid: HOTFIX })).toMatchObject({
        kind: 'frozen',
      });

      expect(await approve(ops, body)).toMatchObject({
        status: 200,
        body: { ok: true, pending: false, approvedBy: `oidc:${OPS_SUB}`, by: 'operator:alice' },
      });
      expect(await job.lease({ resource: PROD, actorDid: HOTFIX })).toMatchObject({
        kind: 'granted',
      });
      await job.release({ resource: PROD, actorDid: HOTFIX });

      // The approver key still approves, beside the OIDC identities.
      const second = 'did:web:github.com:acme:shop:actions:runs:4243:attempts:1:jobs:deploy';
      await admin.breakGlass(
        { resource: PROD, actorDid: second, reason: 'again', by: 'alice' },
        ADMIN,
      );
      expect(
        await admin.approveBreakGlass(
          { resource: PROD, actorDid: second, by: 'bob' },
          APPROVER_KEY,
        ),
      ).toMatchObject({ pending: false, approvedBy: 'operator:bob' });

      const { bundle, publicKey, entries } = await exportLedger(
        kernel.url,
        await issuer.sign({ claims: RUN_CLAIMS }),
      );
      const passes = entries.filter((e) => e.kind === 'break_glass');
      expect(passes.map((e) => [e.actorDid, e.by, e.approvedBy])).toEqual([
        [HOTFIX, 'operator:alice', `oidc:${OPS_SUB}`],
        [second, 'operator:alice', 'operator:bob'],
      ]);
      expect(verifyBundle(bundle, createPublicKey(publicKey))).toMatchObject({
        count: entries.length,
      });
    } finally {
      await admin.close();
      await job.close();
    }
  });
});

describe('--approver-oidc from the committed CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-oidc-approver-'));
  const policy = writePolicy(dir, [
    { name: 'acme', resources: ['lock:*'], claims: { repository_owner: 'acme' } },
  ]);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses the flag without what it needs, before listening', async () => {
    const admin = { LEASE_GATE_ADMIN_KEY: ADMIN };
    for (const [args, env, message] of [
      [['--approver-oidc', OPS_SUB], admin, /^--approver-oidc needs --oidc-audience AUD/],
      [
        ['--oidc-audience', 'lease-gate', '--policy', policy, '--approver-oidc', OPS_SUB],
        {},
        /^--approver-oidc approves what the admin key opens: set LEASE_GATE_ADMIN_KEY/,
      ],
      ...['*', '?*', 'repo:*', '*:*', 'repo:a*/ops', 'repo:/x'].map(
        (pattern) =>
          [
            ['--oidc-audience', 'lease-gate', '--policy', policy, '--approver-oidc', pattern],
            admin,
            /^Invalid --approver-oidc '.*'\. Expected a glob over a token's sub that starts with repo:OWNER\//,
          ] as const,
      ),
    ] as const) {
      const r = await runCli(['kernel', '--port', '0', ...args], env);
      expect(r, args.join(' ')).toMatchObject({ code: 2, stderr: expect.stringMatching(message) });
    }
    const both = await runCli(
      ['approve-break-glass', '--agent', HOTFIX, '--by', 'bob', '--oidc-token-file', policy],
      {},
    );
    expect(both).toMatchObject({ code: 2, stderr: expect.stringMatching(/not both/) });
    const empty = await runCli(
      ['approve-break-glass', '--agent', HOTFIX, '--oidc-token-file', ''],
      { LEASE_GATE_OIDC_TOKEN: 'a.b.c' },
    );
    expect(empty).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^Invalid --oidc-token-file: expected the path/),
    });
  });

  it('approve-break-glass --oidc-token-file approves as the token says', async () => {
    const k = await startKernelProcess(
      [
        '--oidc-issuer',
        issuer.url,
        '--oidc-audience',
        'lease-gate',
        '--policy',
        policy,
        '--approver-oidc',
        OPS_SUB,
      ],
      { LEASE_GATE_ADMIN_KEY: ADMIN },
    );
    try {
      const env = { INTRAMEDIAL_API_URL: k.url };
      const opened = await runCli(
        [
          'break-glass',
          '--resource',
          PROD,
          '--agent',
          HOTFIX,
          '--reason',
          'hotfix',
          '--by',
          'alice',
        ],
        { ...env, LEASE_GATE_ADMIN_KEY: ADMIN },
      );
      expect(opened.code).toBe(0);
      const tokenFile = join(dir, 'ops.jwt');
      const approve = (...extra: string[]) =>
        runCli(
          [
            'approve-break-glass',
            '--resource',
            PROD,
            '--agent',
            HOTFIX,
            '--oidc-token-file',
            tokenFile,
            ...extra,
          ],
          env,
        );
      // A token the kernel will not take: the CLI says the kernel's reason, not only "refused".
      const web = { ...OPS_CLAIMS, sub: 'repo:acme/web:ref:refs/heads/main' };
      writeFileSync(tokenFile, await issuer.sign({ claims: web }));
      const refused = await approve();
      expect(refused).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(
          /refused the key \(403: This token's sub \(repo:acme\/web:ref:refs\/heads\/main\) may not approve/,
        ),
      });
      const token = await issuer.sign({ claims: OPS_CLAIMS });
      writeFileSync(tokenFile, `${token}\n`);
      const approved = await approve('--json');
      expect(approved).toMatchObject({ code: 0 });
      expect(JSON.parse(approved.stdout)).toMatchObject({
        resource: PROD,
        pending: false,
        approvedBy: `oidc:${OPS_SUB}`,
      });
      expect(approved.stdout + approved.stderr).not.toContain(token);
      expect(k.output()).toContain(
        `break-glass approvers: OIDC tokens whose sub matches ${OPS_SUB}`,
      );
    } finally {
      await k.stop();
    }
  });
});
