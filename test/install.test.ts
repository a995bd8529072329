import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package as people install a CLI (issue 55, item 1): `npm pack`, then `npm install -g` of
 * that tarball into an empty prefix with no registry (--offline, an empty cache: the bundles
 * carry everything), then the installed `lease-gate` run from a folder outside the repository.
 */

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string };
const root = mkdtempSync(join(tmpdir(), 'lease-gate-install-'));
const prefix = join(root, 'prefix');
const work = join(root, 'work'); // the cwd of every command: not the repository
const bin = join(prefix, 'bin', 'lease-gate');
// Node 24 first, as the repository's own; nothing of the caller's plane settings.
const env = { PATH: process.env.PATH ?? '', HOME: root };
let packed: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };
let kernel: ChildProcess | undefined;
let hooks: Server | undefined;

beforeAll(async () => {
  mkdirSync(prefix);
  mkdirSync(join(work, 'state'), { recursive: true });
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', root], {
    env: { ...process.env, npm_config_cache: join(root, 'cache') },
  });
  packed = (JSON.parse(stdout) as (typeof packed)[])[0]!;
  const tarball = join(root, packed.filename);
  await run(
    'npm',
    ['install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, tarball],
    { cwd: work, env: { ...process.env, npm_config_cache: join(root, 'cache-install') } },
  );
}, 120_000);

afterAll(async () => {
  kernel?.kill('SIGKILL');
  hooks?.close();
  rmSync(root, { recursive: true, force: true });
});

function lease(args: string[], extra: Record<string, string> = {}) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(bin, args, { cwd: work, env: { ...env, ...extra } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('npm pack', () => {
  it('holds the CLI, the notification worker and the console, and nothing else', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'dist/cli/index.js',
        'dist/notify/index.js',
        'dist/console/index.html',
      ]),
    );
    const outside = paths.filter(
      (p) =>
        !/^dist\/(cli|notify|console)\//.test(p) && !/^(package\.json|README\.md|LICENSE)$/.test(p),
    );
    expect(outside).toEqual([]);
    // The bundles carry their packages: the installed package needs none from a registry.
    const manifest = JSON.parse(
      readFileSync(join(prefix, 'lib/node_modules/lease-gate/package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    console.log(
      `${packed.filename}: ${packed.size} bytes, ${packed.unpackedSize} unpacked, ${paths.length} files`,
    );
  });

  it('is the size docs/self-hosting.md says, within a quarter', () => {
    const said = /tarball is about ([\d.]+) MB \(([\d.]+) MB unpacked\)/.exec(
      readFileSync('docs/self-hosting.md', 'utf8').replace(/\s+/g, ' '),
    );
    expect(said, 'docs/self-hosting.md states the size').not.toBeNull();
    const mb = (bytes: number) => bytes / 1e6;
    expect(mb(packed.size) / Number(said![1])).toBeGreaterThan(0.75);
    expect(mb(packed.size) / Number(said![1])).toBeLessThan(1.25);
    expect(mb(packed.unpackedSize) / Number(said![2])).toBeGreaterThan(0.75);
    expect(mb(packed.unpackedSize) / Number(said![2])).toBeLessThan(1.25);
  });
});

describe('the installed lease-gate, from a folder outside the repository', () => {
  it('--version', async () => {
    expect(await lease(['--version'])).toEqual({ code: 0, out: `lease-gate ${pkg.version}\n` });
  });

  it('kernel: serves /healthz and the console, notifies, exports a ledger that verify accepts', async () => {
    expect((await lease(['keygen', '--out', 'keys'])).code).toBe(0);
    writeFileSync(join(work, 'notify-secret'), 'install-test-secret\n');
    const heard: string[] = [];
    hooks = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        heard.push(body);
        res.end();
      });
    });
    await new Promise<void>((resolve) => hooks!.listen(0, '127.0.0.1', resolve));
    const hookPort = (hooks.address() as { port: number }).port;
    kernel = spawn(
      bin,
      ['kernel', '--host', '127.0.0.1', '--port', '0', '--data-prefix', 'state/kernel'].concat(
        ['--signing-key', 'keys/ledger.key', '--notify', `http://127.0.0.1:${hookPort}/hook`],
        ['--notify-secret-file', 'notify-secret'],
      ),
      { cwd: work, env },
    );
    const url = await listening(kernel);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const page = await fetch(`${url}/console/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');

    const plane = { INTRAMEDIAL_API_URL: url, LEASE_GATE_ACTOR_DID: 'did:web:install.example:a' };
    expect(await lease(['acquire', '--wait-timeout', '0'], plane)).toMatchObject({ code: 0 });
    expect(await lease(['release'], plane)).toMatchObject({ code: 0 });
    // The notification worker (dist/notify) ships too: the grant and the release are POSTed.
    await until(() => heard.length >= 2);
    expect(heard.map((b) => (JSON.parse(b) as { kind: string }).kind)).toEqual([
      'grant',
      'release',
    ]);

    const exported = await lease(['ledger', 'export', '--url', url, '--out', 'audit.json']);
    expect(exported.code, exported.out).toBe(0);
    const verified = await lease(['verify', 'audit.json', '--public-key', 'audit.json.pub']);
    expect(verified.code, verified.out).toBe(0);

    const stopped = new Promise((resolve) => kernel!.once('close', resolve));
    kernel.kill('SIGTERM');
    expect(await stopped).toBe(0);
    kernel = undefined;
  });

  it('app: --help, and a config it refuses in one line (the app itself is loaded)', async () => {
    const help = await lease(['app', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^lease-gate app --config FILE/);
    writeFileSync(join(work, 'app.json'), '{"appId": 1}');
    const refused = await lease(['app', '--config', 'app.json']);
    expect(refused.code).toBe(2);
    expect(refused.out.trim().split('\n')).toHaveLength(1);
    expect(refused.out).toMatch(/^Invalid config app\.json: field 'privateKeyFile'/);
  });
});

/** The kernel's first line names its URL. */
function listening(child: ChildProcess): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /^lease-gate kernel listening on (http:\/\/\S+)$/m.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => reject(new Error(`kernel exited with ${code}: ${out}`)));
  });
}

/** Polls a condition every 50 ms (the notification is sent by the worker, a little later). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}
