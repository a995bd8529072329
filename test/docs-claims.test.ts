import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mainStep } from './support/in-process.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { granted, startScriptedPlane, type ScriptedPlane } from './support/scripted-plane.js';

/**
 * Claims of the README and docs/ that can be checked by running something, run
 * (issue 21, item 6). docs-cli.test.ts holds docs/cli.md to the CLI's --help.
 */

const readme = readFileSync('README.md', 'utf8');
const read = (page: string) => readFileSync(join('docs', page), 'utf8').replace(/\s+/g, ' ');
let kernel: KernelProcess | undefined;
let plane: ScriptedPlane | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await kernel?.stop();
  await plane?.close();
  kernel = plane = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('README: "Every input is checked before the first request"', () => {
  const BAD: Record<string, string> = {
    resource: 'a b',
    'actor-did': 'not-a-did',
    'api-url': 'http://127.0.0.1:8787/api/v1',
    auth: 'magic',
    'wait-timeout': 'soon',
    'on-timeout': 'maybe',
    'keep-alive': 'yes',
    'dry-run': 'perhaps',
    'on-outdated': 'rollback',
    queue: 'lifo',
  };

  it('fails the step naming the input, and the plane hears nothing', async () => {
    expect(readme.replace(/\s+/g, ' ')).toContain(
      'Every input is checked before the first request',
    );
    plane = await startScriptedPlane((req) => ({
      body: granted((req.body as { actorDid: string }).actorDid, 'lease_x'),
    }));
    for (const [name, value] of Object.entries(BAD)) {
      const main = await mainStep({
        inputs: { 'api-url': plane.url, 'keep-alive': 'false', [name]: value },
        env: { INTRAMEDIAL_KEY: 'k' },
      });
      expect(main.failed, name).toContain(`'${name}'`);
    }
    expect(plane.seen).toEqual([]);
  });
});

describe('docs/ledger.md: what the kernel appends', () => {
  it('every grant, renewal, release, freeze, unfreeze, revocation and break-glass, and no refusal', async () => {
    const text = read('ledger.md');
    expect(text).toContain(
      'every grant, renewal, release, lapse and revocation, every freeze and unfreeze, and every break-glass (not refusals',
    );
    kernel = await startKernelProcess(['--ttl-ms', '60000'], { LEASE_GATE_ADMIN_KEY: 'adm' });
    const env = { INTRAMEDIAL_API_URL: kernel.url };
    const admin = { ...env, LEASE_GATE_ADMIN_KEY: 'adm' };
    const A = ['--actor-did', 'did:web:acme.example:agent:a'];
    const B = ['--actor-did', 'did:web:acme.example:agent:b'];
    await runCli(['acquire', ...A], env); // grant
    await runCli(['acquire', ...A], env); // renewal: the holder asks again
    await runCli(['acquire', ...B, '--wait-timeout', '0'], env); // refused: held
    await runCli(['release', ...A], env); // release
    await runCli(['freeze', '--reason', 'audit'], admin); // freeze
    await runCli(['acquire', ...B, '--wait-timeout', '0'], env); // refused: frozen
    await runCli(['unfreeze'], admin); // unfreeze
    await runCli(['acquire', ...B], env); // grant
    await runCli(['revoke'], admin); // revoke
    await runCli(
      ['break-glass', '--agent', 'did:web:acme.example:agent:c', '--reason', 'audit'],
      admin,
    ); // break-glass
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-docs-ledger-'));
    dirs.push(dir);
    const out = join(dir, 'ledger.json');
    const exported = await runCli(['ledger', 'export', '--url', kernel.url, '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const bundle = JSON.parse(readFileSync(out, 'utf8')) as {
      entries: { entry: { kind: string } }[];
    };
    expect(bundle.entries.map((e) => e.entry.kind)).toEqual([
      'grant',
      'renew',
      'release',
      'freeze',
      'unfreeze',
      'grant',
      'revoke',
      'break_glass',
    ]);
  });
});

describe('docs/failure-modes.md: the wait notice comes at once', () => {
  it('says the holder and place within a few seconds of the start, then nothing new while nothing changes', async () => {
    expect(read('failure-modes.md')).toContain('and our place in the queue at once');
    expect(read('failure-modes.md')).not.toMatch(/every 10 s says how long it has waited/);
    kernel = await startKernelProcess(['--ttl-ms', '60000']);
    const env = { PATH: process.env.PATH ?? '', INTRAMEDIAL_API_URL: kernel.url };
    await runCli(['acquire', '--actor-did', 'did:web:acme.example:agent:a'], env);
    const started = Date.now();
    const child = spawn(
      process.execPath,
      [
        'dist/cli/index.js',
        'acquire',
        '--actor-did',
        'did:web:acme.example:agent:b',
        '--wait-timeout',
        '12s',
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    let firstAtMs: number | undefined;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      firstAtMs ??= Date.now() - started;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    // Generous for two busy cores; the bug was 8 s (the first ask held by the plane).
    expect(firstAtMs).toBeLessThan(5_000);
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toMatch(/is held by did:web:acme\.example:agent:a; next in line$/);
    // 12 s of waiting: the first line and the time-out, no progress noise in between.
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^timed out after 1\d?s/);
  }, 60_000);
});

describe("run --help on a revoke, and the README's comparison", () => {
  it('run --help says what a revoke does to the command, and where a loss comes late', () => {
    const help = execFileSync(process.execPath, ['dist/cli/index.js', 'run', '--help'], {
      encoding: 'utf8',
    }).replace(/\s+/g, ' ');
    expect(help).not.toContain('Nothing it started outlives the lease');
    expect(help).toContain('a revoke stops the command at once');
    expect(help).toContain('all of it, setsid() children too, gets SIGTERM');
    expect(help).toContain(
      'Against a plane without the watch, a loss is noticed at the next renewal',
    );
    // The behaviour itself is cli-run-revoke.test.ts's and cli-run-dist.test.ts's.
  });

  it('names each tool and links the long form, which exists', () => {
    const section = readme.slice(readme.indexOf('# Compared with `concurrency:` and lock actions'));
    for (const tool of [
      '`concurrency:` with `queue: max`',
      'turnstyle',
      'gh-action-mutex',
      'branch-deploy',
      'GitLab `resource_group`',
    ])
      expect(section.slice(0, 2_000)).toContain(tool);
    expect(section).toContain('(docs/comparison.md)');
    expect(read('comparison.md')).toContain('Where `concurrency:` is the better choice');
  });

  it('`npx lease-gate` runs the CLI after npm ci, as docs/cli.md writes it', () => {
    const version = execFileSync('npx', ['--offline', 'lease-gate', '--version'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(version.trim()).toMatch(/^lease-gate \d+\.\d+\.\d+$/);
    expect(read('cli.md')).toContain(
      'in a clone after `npm ci`, `npx lease-gate …` runs the same bin',
    );
  }, 60_000);
});
