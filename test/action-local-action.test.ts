import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../src/fs/processes.js';
import { startLoggedKernel } from './support/logged-kernel.js';
import { RESOURCE } from './support/names.js';

/**
 * Main, several lease lifetimes of deploy, then post, run by GitHub's own
 * emulator (@github/local-action, from src/ under tsx), against the real kernel.
 */

const ME = 'did:web:acme.example:agent:local';
const DEPLOY_MS = 15_000;
/**
 * Three lifetimes in one deploy. 1.5 s and then 3 s leases lapsed here with both cores
 * busy (the suite beside other work): the keeper runs from source under tsx and was
 * starved for over a second; 5 s leaves it room and still needs three renewals.
 */
const TTL_MS = 5_000;

let kernel: Awaited<ReturnType<typeof startLoggedKernel>> | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function localAction(envFile: string, env: NodeJS.ProcessEnv) {
  const bin = join('node_modules', '@github', 'local-action', 'bin', 'local-action.js');
  const args = ['run', '.', 'test/support/local-action-deploy.ts', envFile];
  const child = spawn(process.execPath, [bin, ...args, '--post', 'src/action/post.ts'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { output: () => output, exited };
}

describe('@github/local-action', () => {
  it('runs main, holds a 5 s lease through 15 s of deploy, then post releases it; nothing left running', async () => {
    kernel = await startLoggedKernel({ ttlMs: TTL_MS });
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-local-action-'));
    dirs.push(dir);
    const envFile = join(dir, '.env');
    writeFileSync(
      envFile,
      [
        `INPUT_API-URL=${kernel.url}`,
        `INPUT_RESOURCE=${RESOURCE}`,
        `INPUT_ACTOR-DID=${ME}`,
        'INPUT_KEEP-ALIVE=true',
        `RUNNER_TEMP=${dir}`,
        `LEASE_GATE_TEST_DEPLOY_MS=${DEPLOY_MS}`,
        '',
      ].join('\n'),
    );
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir };
    const run = localAction(envFile, {
      ...env,
      INTRAMEDIAL_KEY: 'local-action-test-key',
      npm_config_offline: 'true',
    });
    // While the job deploys, the lease is ours at every look (no lapse, no other grant).
    const looks: Array<string | undefined> = [];
    let deploying = false;
    const watch = setInterval(() => {
      deploying ||= run.output().includes(`deploying for ${DEPLOY_MS} ms`);
      if (!deploying || run.output().includes('Running Post Step')) return;
      // A look answered once post has begun (it releases) does not count.
      void kernel?.kernel.status(RESOURCE).then((lease) => {
        if (!run.output().includes('Running Post Step')) looks.push(lease?.holder);
      });
    }, 250);
    const code = await run.exited.finally(() => clearInterval(watch));
    const output = run.output();
    expect(code, output).toBe(0);
    expect(output).toContain('Keeping the lease alive in the background');
    expect(output).toContain(`Released ${RESOURCE}`);
    expect(output).not.toMatch(/::(warning|error)|Lost /);
    expect(looks.length).toBeGreaterThanOrEqual(10);
    expect(new Set(looks)).toEqual(new Set([ME]));
    // One grant and its release: no lapse, nobody else granted, renewals in between.
    expect(kernel.events.map((e) => [e.kind, e.actorDid])).toEqual([
      ['grant', ME],
      ['release', ME],
    ]);
    const renewals = kernel.requests.filter((r) => r.path.endsWith('/lease')).length;
    expect(renewals).toBeGreaterThanOrEqual(1 + Math.floor(DEPLOY_MS / TTL_MS));
    expect(await kernel.kernel.status(RESOURCE)).toBeNull();
    const keeperPid = Number(/in the background \(pid (\d+)\)/.exec(output)?.[1]);
    expect(keeperPid).toBeGreaterThan(0);
    expect(isAlive(keeperPid)).toBe(false);
  }, 180_000);

  it('runs as package.json writes it: `npm run local-action` with the shipped local-action.env', async () => {
    // The file sets RUNNER_TEMP=.tmp/local-action (the emulator lets the file win over the
    // environment); what this run leaves there is removed after.
    const temp = join('.tmp', 'local-action');
    const before = new Set(existsSync(temp) ? readdirSync(temp) : []);
    const child = spawn('npm', ['run', '--silent', 'local-action'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        npm_config_offline: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    for (const name of readdirSync(temp).filter((n) => !before.has(n)))
      rmSync(join(temp, name), { recursive: true, force: true });
    expect(code, output).toBe(0);
    expect(output).not.toMatch(/missing required argument|Error:/);
    expect(output).toMatch(
      /Acquired lock:deploy\/production as did:web:github\.com:acme:shop:actions:runs:1:/,
    );
    expect(output).toContain('Released lock:deploy/production');
    expect(output).toContain("Stopped the dry run's local kernel");
  }, 180_000);
});
