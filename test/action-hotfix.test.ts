import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { runJob, runStep } from './support/runner.js';
import { PROD } from './support/names.js';

/**
 * The hotfix path for a GitHub job, end to end (docs/promotion-order.md, "The hotfix path,
 * step by step"): the committed CLI's kernel with a promotion order, the committed action's
 * main (dist/) run as a runner runs it. A run whose commit did not complete staging is
 * refused at once, its log naming the run and the command; the operator opens a pass for the
 * run with the CLI before the rerun (whose DID, another attempt and nonce, nobody could name
 * in advance); the rerun is granted once, another run is still refused, and the exported
 * ledger verifies against the order.
 */

const ADMIN = 'admin-key-for-the-hotfix-test';
const HOTFIX = 'c'.repeat(40);
let kernel: KernelProcess | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The deploy job of run `runId`, attempt `attempt`, for the hotfix commit. */
const deployJob = (runId: string, attempt: string) => ({
  inputs: { 'api-url': kernel!.url, 'keep-alive': 'false', 'status-context': 'off' },
  env: {
    INTRAMEDIAL_KEY: 'k',
    GITHUB_SHA: HOTFIX,
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_ATTEMPT: attempt,
  },
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli([args[0]!, '--api-url', kernel!.url, ...args.slice(1)], env);

describe('the hotfix path for a GitHub job', () => {
  it('refused not_promoted naming the run; a pass for the run lets its rerun through once', async () => {
    kernel = await startKernelProcess(['--quiet', '--promote', 'staging->production'], {
      LEASE_GATE_ADMIN_KEY: ADMIN,
    });
    // 1. The job is refused at once, not queued; its log names the step and the command.
    const refused = await runStep('main', deployJob('12345', '1'));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('has not completed a hold on lock:deploy/staging');
    expect(refused.stdout).toContain(
      `lease-gate break-glass --run acme/shop/12345 --resource ${PROD} --reason`,
    );
    expect(refused.outputs.acquired).not.toBe('true');

    // 2. The operator opens a pass for the run (bad forms refused before any request).
    for (const bad of [
      'acme/shop',
      'acme/shop/0',
      'acme/shop/12x',
      'a_b/shop/1',
      'ghe/acme/shop/1/2',
    ]) {
      const r = await cli(['break-glass', '--run', bad, '--reason', 'x'], {
        LEASE_GATE_ADMIN_KEY: ADMIN,
      });
      expect(r, bad).toMatchObject({ code: 2 });
      expect(r.stderr).toMatch(/^Invalid --run '.*'\. Expected OWNER\/REPO\/RUN_ID/);
    }
    const both = await cli(
      ['break-glass', '--run', 'acme/shop/12345', '--agent', 'did:web:x', '--reason', 'x'],
      { LEASE_GATE_ADMIN_KEY: ADMIN },
    );
    expect(both).toMatchObject({ code: 2, stderr: expect.stringContaining('not both') });
    const opened = await cli(
      ['break-glass', '--run', 'acme/shop/12345', '--resource', PROD, '--reason', 'INC-7 hotfix'],
      { LEASE_GATE_ADMIN_KEY: ADMIN },
    );
    expect(opened).toMatchObject({ code: 0 });
    expect(opened.stdout).toContain('one job of the run');

    // Another run is not let through by it.
    const other = await runStep('main', deployJob('777', '1'));
    expect(other.code).toBe(1);
    expect(other.stdout).toContain('lease-gate break-glass --run acme/shop/777');

    // 3. The rerun (attempt 2, a new nonce) is granted, once.
    const rerun = await runJob(deployJob('12345', '2'));
    expect(rerun.main.code).toBe(0);
    expect(rerun.main.outputs.acquired).toBe('true');
    expect(rerun.main.outputs['actor-did']).toMatch(
      /^did:web:github\.com:acme:shop:actions:runs:12345:attempts:2:jobs:deploy:[0-9a-f]+$/,
    );
    expect(rerun.post.stdout).toContain(`Released ${PROD}`);
    const again = await runStep('main', deployJob('12345', '3'));
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('has not completed a hold on lock:deploy/staging');

    // 4. The ledger verifies against the order: the grant used the run's pass.
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-hotfix-'));
    dirs.push(dir);
    const out = join(dir, 'ledger.json');
    expect(await runCli(['ledger', 'export', '--url', kernel.url, '--out', out])).toMatchObject({
      code: 0,
    });
    const verified = await runCli([
      'verify',
      out,
      '--public-key',
      `${out}.pub`,
      '--promote',
      'staging->production',
    ]);
    expect(verified).toMatchObject({ code: 0, stdout: expect.stringMatching(/^OK /) });
  });
});
