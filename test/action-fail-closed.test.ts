import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryContext } from '../src/action/context.js';
import { run as main } from '../src/action/main.js';
import { run as post } from '../src/action/post.js';
import { helperCommand, type HelperCommand } from '../src/lease/helpers.js';
import { startLoggedKernel } from './support/logged-kernel.js';
import { actionInputs } from './support/in-process.js';
import { RUN_ENV } from './support/runner.js';
import { RESOURCE } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * Fail closed: keep-alive asked and no keeper, or a dry run and no kernel,
 * fails main (and gives back what it took). The helper is made to fail by
 * pointing main at a missing or a failing file, not by replacing main's code.
 */

const ME = 'did:web:acme.example:agent:me';
const dir = mkdtempSync(join(tmpdir(), 'lease-gate-fail-closed-'));
const failing = join(dir, 'failing-helper.mjs');
writeFileSync(failing, "process.stderr.write('helper refuses\\n'); process.exit(3);\n");

/** Where a bundle in an empty folder would look: dist/cli/index.js is missing there. */
const missingHelper = () =>
  helperCommand(pathToFileURL(join(dir, 'dist', 'main', 'index.js')).href);
const failingHelper = (): HelperCommand => ({
  command: process.execPath,
  args: [failing],
  keeperArgs: [failing],
  fromSource: false,
});

let kernel: Awaited<ReturnType<typeof startLoggedKernel>> | undefined;
closeAfterEach(() => [kernel]);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const inputs = (extra: Record<string, string>) => actionInputs({ 'actor-did': ME, ...extra });

const env = () => ({ ...RUN_ENV, INTRAMEDIAL_KEY: 'k', RUNNER_TEMP: dir });

describe('main fails closed when a helper does not start', () => {
  for (const [name, helper, says] of [
    ['is missing', missingHelper, /cannot find its helper .*dist\/cli\/index\.js/],
    ['exits at once', failingHelper, /exited \(exit code 3\) before it wrote its status/],
  ] as const) {
    it(`keep-alive asked and the keeper ${name}: main fails and gives the lease back`, async () => {
      kernel = await startLoggedKernel();
      const ctx = memoryContext({
        inputs: inputs({ 'api-url': kernel.url, 'keep-alive': 'true' }),
        env: env(),
      });
      await main(ctx, { helper });
      expect(ctx.failed).toMatch(/Keep-alive was asked for, but the keeper did not start/);
      expect(ctx.failed).toMatch(says);
      expect(ctx.failed).toContain('the lease was given back');
      // The lapse is the plane's expiry, not a fixed 30 s.
      expect(ctx.failed).toMatch(/would lapse at \d{4}-\S+Z \(its expiry as the plane answered\)/);
      expect(ctx.outputs.acquired).toBe('false');
      expect(await kernel.kernel.status(RESOURCE)).toBeNull();
      expect(kernel.events.map((e) => e.kind)).toEqual(['grant', 'release']);
      // Post after a failed main finds nothing left to give back and does not fail.
      const postCtx = memoryContext({
        inputs: inputs({ 'api-url': kernel.url }),
        state: ctx.state,
        env: env(),
      });
      await post(postCtx);
      expect(postCtx.failed).toBeUndefined();
      expect(kernel.events.map((e) => e.kind)).toEqual(['grant', 'release']);
    });
  }

  for (const [name, helper, says] of [
    ['is missing', missingHelper, /cannot find its helper .*dist\/cli\/index\.js/],
    ['exits at once', failingHelper, /the local kernel exited \(exit code 3\) before it listened/],
  ] as const) {
    it(`a dry run whose kernel ${name}: main fails with a clear message and holds nothing`, async () => {
      const ctx = memoryContext({ inputs: inputs({ 'dry-run': 'true' }), env: env() });
      await main(ctx, { helper });
      expect(ctx.failed).toMatch(/^Dry run: the local kernel did not start: /);
      // The exit is noticed, not waited out: waiting out the 10 s start timeout says
      // "did not start within", whatever the load, so no wall clock is needed here.
      expect(ctx.failed).toMatch(says);
      expect(ctx.failed).toContain('this job holds no lease');
      expect(ctx.failed).not.toMatch(/\n|\s{2}at /);
      expect(ctx.state.outcome).toBe('none');
      expect(ctx.outputs.acquired).toBeUndefined();
      const postCtx = memoryContext({ inputs: inputs({}), state: ctx.state, env: env() });
      await post(postCtx);
      expect(postCtx.failed).toBeUndefined();
    });
  }
});
