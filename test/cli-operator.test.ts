import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HOSTED_API_URL, askedHostedPlane } from '../src/cli/plane-url.js';
import { retryLines } from '../src/cli/session.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { Ledger } from '../src/ledger/ledger.js';
import { runCli } from './support/kernel-process.js';
import { createPlaneClient, type PlaneClient } from '../src/plane/client.js';
import { runMain } from './support/cli-main.js';
import { A, B, C, R } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * The CLI for an operator (issue 55, item 6), in-process (src/) against a real kernel over
 * HTTP on 127.0.0.1:0: `status` lists the queue as the console does, `history` says what the
 * ledger holds in the console's words, LEASE_GATE_API_URL names the plane, every plane command
 * takes --api-url, and a failure with no plane named says the hosted plane was asked.
 */

const ADMIN = 'admin-key-for-the-operator-test';
const S = 'lock:deploy/staging';
let kernel: RunningKernel | undefined;
let client: PlaneClient | undefined;

closeAfterEach(() => [client, kernel]);

const cli = (args: string[], env: Record<string, string> = {}) => runMain(args, env);

async function start() {
  const { privateKey } = generateKeyPairSync('ed25519');
  kernel = await startKernelServer({
    adminKey: ADMIN,
    ledger: new Ledger(privateKey),
    log: () => undefined,
  });
  client = createPlaneClient({ apiUrl: kernel.url });
  return { url: kernel.url, plane: client };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('lease-gate status lists the queue', () => {
  it('gives each waiter its place, how long it has waited and the estimate, in text and JSON', async () => {
    const { url, plane } = await start();
    // A hold that ended: the kernel then knows a typical hold, and estimates.
    expect((await plane.lease({ resource: R, actorDid: C })).kind).toBe('granted');
    await plane.release({ resource: R, actorDid: C });
    expect((await plane.lease({ resource: R, actorDid: A })).kind).toBe('granted');
    expect((await plane.lease({ resource: R, actorDid: B })).kind).toBe('held');
    expect((await plane.lease({ resource: R, actorDid: C })).kind).toBe('held');

    const text = await cli(['status', '--api-url', url]);
    expect(text.code, text.err).toBe(0);
    const lines = text.out.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${R} is held by ${A}: lease `));
    expect(lines.slice(1)).toEqual([
      '2 waiting:',
      expect.stringMatching(
        new RegExp(
          `^  1st in line ${B} · waiting [\\d.]+ s · (about .+|any moment now) at recent hold times$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`^  2nd in line ${C} · waiting [\\d.]+ s · about .+ at recent hold times$`),
      ),
    ]);

    const json = JSON.parse((await cli(['status', '--api-url', url, '--json'])).out);
    expect(json).toMatchObject({
      resource: R,
      lease: { holder: A },
      queue: [
        { actorDid: B, position: 0, waitedMs: expect.any(Number), etaMs: expect.any(Number) },
        { actorDid: C, position: 1, waitedMs: expect.any(Number), etaMs: expect.any(Number) },
      ],
    });
    // The 2nd waits a typical hold more than the 1st.
    expect(json.queue[1].etaMs).toBeGreaterThan(json.queue[0].etaMs);

    // Another resource's queue is not this one's.
    const other = JSON.parse(
      (await cli(['status', '--api-url', url, '--resource', S, '--json'])).out,
    );
    expect(other).toMatchObject({ resource: S, lease: null, queue: [] });
  });
});

describe('lease-gate history', () => {
  it("says what the ledger holds in the console's words, by resource and since a time", async () => {
    const { url, plane } = await start();
    expect((await plane.lease({ resource: R, actorDid: A })).kind).toBe('granted');
    await plane.release({ resource: R, actorDid: A });
    expect((await plane.lease({ resource: S, actorDid: B })).kind).toBe('granted');
    await plane.revoke(S, 'incident 42', ADMIN, {}, 'ana');
    // The kernel stamps entries with its clock in ms: a boundary clear of both sides.
    await pause(30);
    const boundary = new Date().toISOString();
    await pause(30);
    await plane.freeze({ resource: R, reason: 'release week' }, ADMIN);
    expect((await plane.lease({ resource: R, actorDid: C })).kind).toBe('frozen');

    const all = await cli(['history', '--api-url', url]);
    expect(all.code, all.err).toBe(0);
    const lines = all.out.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC  ${R}  ${A}  fence \\d+  for [\\d.]+ s  released$`,
      ),
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `UTC  ${S}  ${B}  fence \\d+  for [\\d.]+ s  revoked by operator:ana: incident 42$`,
      ),
    );
    expect(lines[2]).toMatch(new RegExp(`UTC  ${R}  frozen by operator:admin-key: release week$`));

    const onlyR = await cli(['history', '--api-url', url, '--resource', R]);
    expect(onlyR.out.split('\n')).toEqual([
      expect.stringContaining(`${A}  fence`),
      expect.stringContaining('frozen by operator:admin-key: release week'),
    ]);

    const since = await cli(['history', '--api-url', url, '--since', boundary, '--json']);
    expect(JSON.parse(since.out).rows).toEqual([
      {
        atMs: expect.any(Number),
        resource: R,
        kind: 'freeze',
        what: 'frozen by operator:admin-key: release week',
      },
    ]);
    expect(
      (await cli(['history', '--api-url', url, '--since', '1h', '--resource', S])).out,
    ).toContain('revoked by operator:ana: incident 42');
    expect((await cli(['history', '--api-url', url, '--resource', 'lock:none'])).out).toBe(
      'Nothing in the ledger matches.',
    );
    expect(await cli(['history', '--api-url', url, '--since', 'yesterday'])).toMatchObject({
      code: 2,
      err: expect.stringContaining(
        "Invalid --since 'yesterday'. Expected a duration back from now",
      ),
    });
  });

  it('lists a break-glass and its withdrawal', async () => {
    const { url, plane } = await start();
    await plane.breakGlass({ resource: R, actorDid: A, reason: 'CVE fix', by: 'ana' }, ADMIN);
    await plane.withdrawBreakGlass({ resource: R, actorDid: A, by: 'bo' }, ADMIN);
    const lines = (await cli(['history', '--api-url', url, '--resource', R])).out.split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/BREAK-GLASS by operator:ana: CVE fix \(let through /),
      expect.stringMatching(/break-glass withdrawn by operator:bo/),
    ]);
  });
});

describe('the plane URL', () => {
  it('comes from LEASE_GATE_API_URL before INTRAMEDIAL_API_URL', async () => {
    const { url, plane } = await start();
    expect((await plane.lease({ resource: R, actorDid: A })).kind).toBe('granted');
    const closed = 'http://127.0.0.1:9';
    const both = await cli(['status'], { LEASE_GATE_API_URL: url, INTRAMEDIAL_API_URL: closed });
    expect(both).toMatchObject({ code: 0, out: expect.stringContaining(`is held by ${A}`) });
    // The older name still works alone.
    const older = await cli(['status'], { INTRAMEDIAL_API_URL: url });
    expect(older).toMatchObject({ code: 0, out: expect.stringContaining(`is held by ${A}`) });
    // ledger export reads it too, and takes --api-url (its --url kept as the older name).
    for (const args of [[], ['--api-url', url], ['--url', url]]) {
      const exported = await cli(['ledger', 'export', ...args], { LEASE_GATE_API_URL: url });
      expect(exported.code, exported.err).toBe(0);
      expect(JSON.parse(exported.out).entries.length).toBeGreaterThan(0);
    }
    expect(await cli(['ledger', 'export', '--api-url', url, '--url', url])).toMatchObject({
      code: 2,
      err: expect.stringContaining('Give --api-url or its older name --url, not both.'),
    });
  });

  it('is taken as --api-url by every command that asks a plane', async () => {
    const { url } = await start();
    // The kernel has no approver: approve-break-glass is refused (1), not a usage error (2).
    const env = { LEASE_GATE_ADMIN_KEY: ADMIN, LEASE_GATE_APPROVER_KEY: 'approver' };
    const runs: string[][] = [
      ['acquire', '--actor-did', A, '--wait-timeout', '0'],
      ['release', '--actor-did', A],
      ['run', '--actor-did', B, '--', process.execPath, '-e', ''],
      ['status'],
      ['history'],
      ['freeze', '--reason', 'x'],
      ['unfreeze'],
      ['break-glass', '--agent', C, '--reason', 'hotfix'],
      ['approve-break-glass', '--agent', C, '--by', 'bob'],
      ['revoke'],
      ['ledger', 'export'],
    ];
    for (const [name, ...rest] of runs) {
      const [own, after] = rest.includes('--')
        ? [rest.slice(0, rest.indexOf('--')), rest.slice(rest.indexOf('--'))]
        : [rest, []];
      const args = name === 'ledger' ? ['ledger', ...own] : [name!, ...own];
      const got = await cli([...args, '--api-url', url, ...after], env);
      expect(got.err, name).not.toMatch(/Unknown flag|cannot reach|hosted plane/);
      expect(got.code, `${name}: ${got.err}`).not.toBe(2);
    }
    // And each says so in its help.
    const help = (await cli(['--help'])).out;
    for (const name of ['acquire', 'release', 'run', 'status', 'history', 'revoke', 'freeze']) {
      expect(help).toMatch(new RegExp(`lease-gate ${name} [^\\n]*--api-url U`));
    }
    expect(help).toMatch(/lease-gate ledger export \[--api-url U\]/);
  });
});

describe('with no plane named', () => {
  it('says the hosted plane was asked, and how to name another', async () => {
    // No URL, no key: refused before any request, naming the hosted plane.
    const keyless = await cli(['status']);
    expect(keyless.code).toBe(2);
    expect(keyless.err).toContain(`The hosted plane ${HOSTED_API_URL} would be asked`);
    expect(keyless.err).toContain('pass --api-url URL or set LEASE_GATE_API_URL');

    // An unreachable hosted plane's first line says the same (not "is the kernel running").
    const said: string[] = [];
    const retry = retryLines(
      HOSTED_API_URL,
      'the default, the hosted plane: no --api-url, no LEASE_GATE_API_URL',
      (l) => said.push(l),
      () => 0,
    );
    retry({ attempt: 1, error: 'getaddrinfo ENOTFOUND', retryForMs: 30_000 });
    expect(said[0]).toContain(`cannot reach the plane at ${HOSTED_API_URL}`);
    expect(said[0]).toContain(`The hosted plane ${HOSTED_API_URL} was asked`);
    expect(said[0]).not.toContain('Is the kernel running');

    // Any other failure gets the line too, unless a URL was named.
    expect(askedHostedPlane('status', [], {})).toBe(true);
    expect(askedHostedPlane('status', ['--api-url', 'http://127.0.0.1:1'], {})).toBe(false);
    expect(askedHostedPlane('status', ['--api-url=http://127.0.0.1:1'], {})).toBe(false);
    expect(askedHostedPlane('status', [], { LEASE_GATE_API_URL: 'http://127.0.0.1:1' })).toBe(
      false,
    );
    expect(askedHostedPlane('ledger', ['export', '--url', 'http://127.0.0.1:1'], {})).toBe(false);
    expect(askedHostedPlane('run', ['--', 'x', '--api-url', 'y'], {})).toBe(true);
    expect(askedHostedPlane('verify', [], {})).toBe(false);

    // A request that fails (the built CLI, the hosted plane behind a proxy that is not there:
    // nothing leaves this machine) says so too; history and ledger export do not retry.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const proxied = { HTTPS_PROXY: `http://127.0.0.1:${port}`, LEASE_GATE_KEY: 'k' };
    for (const args of [['history'], ['ledger', 'export']]) {
      const failed = await runCli(args, proxied);
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stderr).toContain(`lease-gate ${args[0]}: `);
      expect(failed.stderr).toContain(`lease-gate: The hosted plane ${HOSTED_API_URL} was asked`);
      expect(failed.stderr).not.toContain('\n    at ');
    }
    const elsewhere = await runCli(['history', '--api-url', 'https://plane.example.com'], proxied);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).not.toContain('was asked');

    // A named plane that fails says nothing of the hosted one.
    const named = await cli(['status', '--api-url', 'https://plane.example.com']);
    expect(named.err).not.toContain('was asked');
  });
});
