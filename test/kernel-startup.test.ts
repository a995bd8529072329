/**
 * An operator's foot-guns at kernel start (#54 items 10 to 13), through the real CLI: a
 * port taken exits 1 whatever the store; a replica with another signing key is refused
 * by the plane; a file kernel keeps its ledger identity across restarts; weak or shared
 * keys are refused beyond loopback (short keys on loopback still serve tests and the demo).
 */
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileOnce } from '../src/fs/create-once.js';
import { createPlaneClient } from '../src/plane/client.js';
import { DIST_CLI, runCli, startKernelProcess } from './support/kernel-process.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { pgReplicas } from './support/pg-replicas.js';

const dir = mkdtempSync(join(tmpdir(), 'lease-gate-startup-'));
const LONG = 'a-long-random-kernel-key-0123456789';

/** The CLI to its end, or killed after `ms`: a kernel that stays up gives `code` null. */
const runBounded = (args: string[], env: Record<string, string> = {}, ms = 20_000) =>
  runCli(args, env, DIST_CLI, ms);

async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { port: (server.address() as { port: number }).port, server };
}

async function lease(url: string, resource: string) {
  const client = createPlaneClient({ apiUrl: url });
  const actorDid = 'did:web:example.com:ci:startup';
  expect(await client.lease({ resource, actorDid })).toMatchObject({ kind: 'granted' });
  await client.release({ resource, actorDid });
}

const keyDir = (name: string) => {
  const out = join(dir, name);
  return runCli(['keygen', '--out', out]).then((r) => {
    expect(r.code).toBe(0);
    return join(out, 'ledger.key');
  });
};

describe('a port taken', () => {
  let taken: { port: number; server: Server };
  beforeAll(async () => (taken = await takenPort()));
  afterAll(() => new Promise<void>((done) => taken.server.close(() => done())));

  it.each([
    ['memory', []],
    ['file', ['--data-prefix', join(dir, 'taken')]],
  ])('exits 1 with one line on the %s store', async (_, store) => {
    const result = await runBounded(['kernel', '--port', String(taken.port), ...store]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^lease-gate kernel: listen EADDRINUSE.*pick another with --port/),
    ]);
  });

  describePostgres('on the PostgreSQL store', () => {
    const kit = pgReplicas();

    it('exits 1 with one line rather than stay up serving nothing', async () => {
      const args = ['kernel', '--port', String(taken.port), '--store', POSTGRES_URL];
      const result = await runBounded([
        ...args,
        '--schema',
        kit.schema,
        '--signing-key',
        await keyDir('pg-taken'),
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^lease-gate kernel: listen EADDRINUSE/),
      ]);
    });
  });
});

describePostgres("a replica with another key than the plane's", () => {
  const kit = pgReplicas();

  it('is refused in one line, while replicas with the plane key join', async () => {
    const plane = await keyDir('plane');
    const other = await keyDir('other');
    const args = (key: string) => [
      '--store',
      POSTGRES_URL,
      '--schema',
      kit.schema,
      '--signing-key',
      key,
    ];
    const first = await startKernelProcess(args(plane));
    try {
      const refused = await runBounded(['kernel', '--port', '0', ...args(other)]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      const lines = refused.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^lease-gate kernel: this replica's --signing-key signs as lease-gate\.kernel\/[0-9a-f]{16}, but the plane's ledger is signed by lease-gate\.kernel\/[0-9a-f]{16} .*--signing-key FILE$/,
      );
      expect(lines[0]).not.toContain('PRIVATE');
      const second = await startKernelProcess(args(plane));
      await lease(second.url, 'lock:deploy/startup');
      await second.stop();
      await lease(first.url, 'lock:deploy/startup');
    } finally {
      await first.stop();
    }
  });
});

describe('a file kernel without --signing-key', () => {
  it('keeps its ledger identity across a restart: verify --previous passes', async () => {
    const prefix = join(dir, 'kept');
    const keyFile = `${prefix}.ledger.jsonl.key`;
    const origin =
      /^ledger (lease-gate\.kernel\/[0-9a-f]{16}) signs with the key in (\S+) \((made now|kept from)/m;
    const run = async (resource: string, out: string) => {
      const kernel = await startKernelProcess(['--data-prefix', prefix]);
      await lease(kernel.url, resource);
      expect((await runCli(['ledger', 'export', '--url', kernel.url, '--out', out])).code).toBe(0);
      await kernel.stop();
      return origin.exec(kernel.output());
    };
    const before = await run('lock:deploy/one', join(dir, 'one.json'));
    expect(before?.[2]).toBe(keyFile);
    expect(before?.[3]).toBe('made now');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const keyText = readFileSync(keyFile, 'utf8');
    const after = await run('lock:deploy/two', join(dir, 'two.json'));
    expect(after?.[3]).toBe('kept from');
    expect(after?.[1]).toBe(before?.[1]);
    expect(readFileSync(keyFile, 'utf8')).toBe(keyText);
    const checkpoint = join(dir, 'one.checkpoint');
    const bundle = JSON.parse(readFileSync(join(dir, 'one.json'), 'utf8')) as {
      checkpoint: string;
    };
    writeFileSync(checkpoint, bundle.checkpoint);
    const verified = await runCli([
      'verify',
      join(dir, 'two.json'),
      '--public-key',
      join(dir, 'one.json.pub'),
      '--previous',
      checkpoint,
    ]);
    expect(verified.stderr).toBe('');
    expect(verified.stdout).toMatch(/^OK .*consistent with the previous checkpoint/);
    expect(verified.code).toBe(0);
    // The key never reaches the output.
    expect(keyText).toMatch(/PRIVATE KEY/);
  });

  it('is made once: a second creation leaves the first text in place, and no temporary file', () => {
    const once = join(dir, 'once');
    mkdirSync(once);
    const file = join(once, 'ledger.key');
    expect(createFileOnce(file, 'first')).toBe(true);
    expect(createFileOnce(file, 'second')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('first');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(once)).toEqual(['ledger.key']);
  });

  it('refuses to start on a damaged key file rather than sign as someone new', async () => {
    const prefix = join(dir, 'damaged');
    writeFileSync(`${prefix}.ledger.jsonl.key`, 'not a key\n');
    const result = await runBounded(['kernel', '--port', '0', '--data-prefix', prefix]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^lease-gate kernel: Cannot read the signing key .*damaged\.ledger\.jsonl\.key: .*\n$/,
    );
    expect(readFileSync(`${prefix}.ledger.jsonl.key`, 'utf8')).toBe('not a key\n');
  });
});

describe('weak and shared keys', () => {
  const kernel = (args: string[], env: Record<string, string>) =>
    runBounded(['kernel', '--port', '0', ...args], env, 15_000);

  it.each([
    [['--host', '0.0.0.0'], { LEASE_GATE_KERNEL_KEY: 'abc' }, 'LEASE_GATE_KERNEL_KEY', '0.0.0.0'],
    [
      ['--host', '0.0.0.0'],
      { LEASE_GATE_KERNEL_KEY: LONG, LEASE_GATE_ADMIN_KEY: 'adm' },
      'LEASE_GATE_ADMIN_KEY',
      '0.0.0.0',
    ],
    [
      ['--public-url', 'https://gate.example'],
      { LEASE_GATE_KERNEL_KEY: 'short-key' },
      'LEASE_GATE_KERNEL_KEY',
      'gate.example',
    ],
  ])('%j with %j: refuses %s', async (args, env, name, where) => {
    const result = await kernel(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `${name} is shorter than 16 characters, too easy to guess for a kernel reachable at ${where}: use a long random key (openssl rand -hex 32), or keep --host on loopback. See 'lease-gate kernel --help'.`,
    );
  });

  it('listens beyond loopback with a key of 16 characters', async () => {
    const started = await startKernelProcess(['--host', '0.0.0.0'], {
      LEASE_GATE_KERNEL_KEY: 'sixteen-chars-no',
    });
    expect(await started.stop()).toBe(0);
  });

  it('still serves a short key on loopback (tests, the demo)', async () => {
    const started = await startKernelProcess([], {
      LEASE_GATE_KERNEL_KEY: 'abc',
      LEASE_GATE_ADMIN_KEY: 'adm',
    });
    expect(await started.stop()).toBe(0);
  });

  it('refuses an admin key that is the agents’ kernel key, on loopback too', async () => {
    const result = await kernel([], { LEASE_GATE_KERNEL_KEY: LONG, LEASE_GATE_ADMIN_KEY: LONG });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "LEASE_GATE_ADMIN_KEY is the kernel key every job holds, so every job could revoke, freeze and break glass: give the admin key a value of its own. See 'lease-gate kernel --help'.",
    );
  });

  it("refuses an admin key that is a scoped agent's key", async () => {
    const keys = join(dir, 'keys.json');
    const sha256 = createHash('sha256').update(LONG).digest('hex');
    writeFileSync(
      keys,
      JSON.stringify({
        keys: [{ name: 'jenkins', sha256, actors: ['did:web:ci.example:*'], resources: ['*'] }],
      }),
    );
    const result = await kernel(['--keys', keys], { LEASE_GATE_ADMIN_KEY: LONG });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `LEASE_GATE_ADMIN_KEY is the scoped key "jenkins" in ${keys}: an operator's key must be one no agent holds. See 'lease-gate kernel --help'.`,
    );
  });
});

describe('a memory kernel without --signing-key', () => {
  it('prints the public key of its run as a PEM block one can paste, the key its exports verify with', async () => {
    const kernel = await startKernelProcess([]);
    await lease(kernel.url, 'lock:deploy/memory');
    const out = join(dir, 'memory.json');
    expect((await runCli(['ledger', 'export', '--url', kernel.url, '--out', out])).code).toBe(0);
    await kernel.stop();
    // Not escaped into one line (`…key:%0A-----BEGIN…`): each PEM line on its own.
    expect(kernel.output()).not.toContain('%0A');
    const pem = /^-----BEGIN PUBLIC KEY-----\n[\s\S]+?\n-----END PUBLIC KEY-----$/m.exec(
      kernel.output(),
    );
    expect(pem).not.toBeNull();
    expect(pem![0].trim()).toBe(readFileSync(`${out}.pub`, 'utf8').trim());
  });
});
