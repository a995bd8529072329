import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchLedger } from '../src/ledger/remote.js';
import { createPlaneClient, type PlaneClient } from '../src/plane/client.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { R } from './support/names.js';

/**
 * `lease-gate break-glass` and `approve-break-glass` from the committed CLI against its
 * kernel started with a second approver, then `lease-gate verify` of what it recorded;
 * bad input refused before any request, naming the input and its form, changing nothing.
 */

const ADMIN = 'admin-key-for-the-break-glass-cli-test';
const APPROVER = 'approver-key-for-the-break-glass-cli-test';
const HOTFIX = 'did:web:acme.example:agent:hotfix';

describe('lease-gate break-glass', () => {
  let kernel: KernelProcess;
  let client: PlaneClient;
  const cli = (args: string[], env: Record<string, string>) =>
    runCli([args[0]!, '--api-url', kernel.url, '--resource', R, ...args.slice(1)], env);
  const admin = { LEASE_GATE_ADMIN_KEY: ADMIN };
  const approver = { LEASE_GATE_APPROVER_KEY: APPROVER };

  beforeAll(async () => {
    kernel = await startKernelProcess(['--quiet'], {
      LEASE_GATE_ADMIN_KEY: ADMIN,
      LEASE_GATE_APPROVER_KEY: APPROVER,
    });
    client = createPlaneClient({ apiUrl: kernel.url });
  });
  afterAll(async () => {
    await client?.close();
    await kernel?.stop();
  });

  it('refuses bad input before any request, naming the input and its form', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['break-glass', '--reason', 'x'], /break-glass needs --agent DID/],
      [
        ['break-glass', '--agent', 'nope', '--reason', 'x'],
        /Invalid --agent 'nope'\. Expected a DID/,
      ],
      [['break-glass', '--agent', HOTFIX], /break-glass needs --reason TEXT/],
      [
        ['break-glass', '--agent', HOTFIX, '--reason', 'x', '--for', '2h'],
        /Invalid --for '2h'\. Expected a duration such as '10m' or '1h' \(at most 1h\)/,
      ],
      [['break-glass', '--agent', HOTFIX, '--reason', 'x', '--by', 'a b'], /Invalid --by 'a b'/],
      [['approve-break-glass', '--agent', HOTFIX], /approve-break-glass needs --by NAME/],
      [
        ['break-glass', '--cancel', '--reason', 'x'],
        /break-glass --cancel takes no --reason or --for/,
      ],
      [['break-glass', '--cancel', '--agent', 'nope'], /Invalid --agent 'nope'\. Expected a DID/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args, admin);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(
      await cli(['approve-break-glass', '--agent', HOTFIX, '--by', 'bob'], admin),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/needs the key in LEASE_GATE_APPROVER_KEY/),
    });
    const { bundle } = (await fetchLedger(kernel.url)) as { bundle: { entries: unknown[] } };
    expect(bundle.entries).toEqual([]);
  });

  it('refuses to start a kernel whose approver key is the admin or kernel key, or has no admin key', async () => {
    const twice = await runCli(['kernel', '--port', '0'], {
      LEASE_GATE_ADMIN_KEY: ADMIN,
      LEASE_GATE_APPROVER_KEY: ADMIN,
    });
    expect(twice).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /LEASE_GATE_APPROVER_KEY is the admin key: a second approver needs a key of its own/,
      ),
    });
    const shared = await runCli(['kernel', '--port', '0'], {
      LEASE_GATE_ADMIN_KEY: ADMIN,
      LEASE_GATE_KERNEL_KEY: APPROVER,
      LEASE_GATE_APPROVER_KEY: APPROVER,
    });
    expect(shared).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/LEASE_GATE_APPROVER_KEY is the kernel key every job holds/),
    });
    const alone = await runCli(['kernel', '--port', '0'], { LEASE_GATE_APPROVER_KEY: APPROVER });
    expect(alone).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/set LEASE_GATE_ADMIN_KEY too/),
    });
  });

  it('opens, is approved by another operator, lets the job through once, and verifies', async () => {
    expect(await cli(['freeze', '--reason', 'release freeze'], admin)).toMatchObject({ code: 0 });
    const opened = await cli(
      [
        'break-glass',
        '--agent',
        HOTFIX,
        '--reason',
        'CVE-2026-1234',
        '--for',
        '10m',
        '--by',
        'alice',
      ],
      admin,
    );
    expect(opened).toMatchObject({ code: 0, stderr: '' });
    expect(opened.stdout).toMatch(
      new RegExp(
        `^break-glass on ${R} waiting for a second operator to approve: ${HOTFIX} may be granted it once`,
      ),
    );
    expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({ kind: 'frozen' });
    // The same name cannot approve what it opened.
    const same = await cli(['approve-break-glass', '--agent', HOTFIX, '--by', 'alice'], approver);
    expect(same.code).toBe(1);
    expect(same.stderr).toMatch(/another operator must approve it/);
    const approved = await cli(
      ['approve-break-glass', '--agent', HOTFIX, '--by', 'bob', '--json'],
      approver,
    );
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({
      resource: R,
      actorDid: HOTFIX,
      by: 'operator:alice',
      approvedBy: 'operator:bob',
      pending: false,
    });
    expect(await client.lease({ resource: R, actorDid: HOTFIX })).toMatchObject({
      kind: 'granted',
    });
    // Exported and checked offline, as an auditor would: the grant inside the freeze has its pass.
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-break-glass-cli-'));
    try {
      const out = join(dir, 'ledger.json');
      expect(
        await runCli(['ledger', 'export', '--url', kernel.url, '--out', out], {}),
      ).toMatchObject({
        code: 0,
      });
      const verified = await runCli(['verify', out, '--public-key', `${out}.pub`], {});
      expect(verified).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^OK .*size 3\b/),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--cancel withdraws the pass, signed: the job is frozen again', async () => {
    const other = 'lock:deploy/withdraw';
    const on = (args: string[], env: Record<string, string>) =>
      runCli([args[0]!, '--api-url', kernel.url, '--resource', other, ...args.slice(1)], env);
    expect(await on(['freeze', '--reason', 'release freeze'], admin)).toMatchObject({ code: 0 });
    // Nothing to withdraw yet: the kernel's refusal, said in one line.
    const none = await on(['break-glass', '--cancel'], admin);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no unused break-glass/);
    expect(none.stderr).not.toMatch(/\n\s+at /);
    await on(['break-glass', '--agent', HOTFIX, '--reason', 'rollback', '--by', 'alice'], admin);
    await on(['approve-break-glass', '--agent', HOTFIX, '--by', 'bob'], approver);
    const cancelled = await on(
      ['break-glass', '--cancel', '--agent', HOTFIX, '--by', 'carol'],
      admin,
    );
    expect(cancelled).toMatchObject({ code: 0, stderr: '' });
    expect(cancelled.stdout).toBe(
      `withdrawn: the break-glass on ${other} for ${HOTFIX} can no longer be used\n`,
    );
    expect(await client.lease({ resource: other, actorDid: HOTFIX })).toMatchObject({
      kind: 'frozen',
    });
    const { bundle } = (await fetchLedger(kernel.url)) as {
      bundle: { entries: Array<{ entry: { kind: string; resource: string; by?: string } }> };
    };
    const mine = bundle.entries.map((e) => e.entry).filter((e) => e.resource === other);
    expect(mine.map((e) => [e.kind, e.by])).toEqual([
      ['freeze', undefined],
      ['break_glass', 'operator:alice'],
      ['break_glass_withdrawn', 'operator:carol'],
    ]);
  });
});
