import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { Ledger } from '../src/ledger/ledger.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { runMain } from './support/cli-main.js';
import { R } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * The deploy flags of `run` and `acquire` (for CI systems that are not GitHub
 * Actions), in-process against the real kernel over HTTP: they reach the grant's
 * signed ledger entry and `status`, a bad one is a usage error naming it with
 * nothing changed, and `--queue newest` steps aside for a newer run.
 */

const SHA = 'c0ffee'.padEnd(40, '0');
const URL_5 = 'https://ci.example.com/acme/shop/-/pipelines/5';
const URL_6 = 'https://ci.example.com/acme/shop/-/pipelines/6';
let kernel: RunningKernel | undefined;

closeAfterEach(() => [kernel]);

async function start() {
  const { privateKey } = generateKeyPairSync('ed25519');
  kernel = await startKernelServer({
    table: new ResourceTable({ nextInLineWaitMs: 50 }),
    ledger: new Ledger(privateKey),
    log: () => undefined,
  });
  return kernel.url;
}

const cli = (args: string[], onErr?: (line: string) => void) => runMain(args, {}, onErr);

const lane = (runNumber: number, url: string) => [
  '--repository',
  'acme/shop',
  '--workflow',
  'deploy',
  '--ref',
  'main',
  '--run-number',
  String(runNumber),
  '--run-url',
  url,
];

describe('the deploy flags', () => {
  it('reach the grant entry of the signed ledger and status', async () => {
    const url = await start();
    const acquired = await cli([
      'acquire',
      '--resource',
      R,
      '--api-url',
      url,
      '--actor-did',
      'did:web:ci.example.com:jenkins:5',
      '--commit',
      SHA.toUpperCase(),
      '--run-attempt',
      '2',
      ...lane(5, URL_5),
    ]);
    expect(acquired.code, acquired.err).toBe(0);
    const status = await cli(['status', '--resource', R, '--api-url', url]);
    expect(status.code).toBe(0);
    expect(status.out).toContain(
      `; deploying commit ${SHA} of acme/shop workflow deploy on main run 5 attempt 2: ${URL_5}`,
    );
    const json = await cli(['status', '--resource', R, '--api-url', url, '--json']);
    expect(JSON.parse(json.out).lease.deploy).toEqual({
      repository: 'acme/shop',
      workflow: 'deploy',
      ref: 'main',
      commit: SHA,
      runNumber: 5,
      runAttempt: 2,
      runUrl: URL_5,
    });
    const { bundle, publicKey } = await fetchLedger(url);
    const grant = (bundle as { entries: Array<{ entry: Record<string, unknown> }> }).entries
      .map((e) => e.entry)
      .find((e) => e.kind === 'grant');
    expect(grant?.deploy).toEqual(JSON.parse(json.out).lease.deploy);
    expect(verifyBundle(bundle, createPublicKey(publicKey))).toMatchObject({ count: 1 });
  });

  it.each([
    [['--commit', 'abc123'], /^Invalid --commit 'abc123'\. Expected a full commit SHA/],
    [['--run-number', '0'], /^Invalid --run-number '0'\. Expected a whole number from 1/],
    [['--run-number', '1e3'], /^Invalid --run-number '1e3'\./],
    [['--run-attempt=-1'], /^Invalid --run-attempt '-1'\./],
    [['--run-url', 'http://ci.example.com/1'], /^Invalid --run-url .*Expected an https:\/\//],
    [['--repository', 'acme'], /^Invalid --repository 'acme'\. Expected owner\/repo/],
    [['--ref', 'has space'], /^Invalid --ref 'has space'\./],
    [['--workflow', 'two\nlines'], /^Invalid --workflow 'two%0Alines'\./],
    [['--queue', 'lifo'], /^Invalid --queue 'lifo'\. Expected 'fifo' or 'newest'/],
    [['--queue', 'newest', '--ref', 'main'], /^--queue newest needs --repository, --workflow/],
  ])('refuses %j as a usage error, changing nothing', async (flags, message) => {
    const url = await start();
    for (const command of ['acquire', 'run']) {
      const args = [command, '--resource', R, '--api-url', url, ...flags];
      const result = await cli(command === 'run' ? [...args, '--', 'true'] : args);
      expect(result.code).toBe(2);
      expect(result.err).toMatch(message);
      expect(result.err).toMatch(new RegExp(`See 'lease-gate ${command} --help'\\.$`));
      expect(result.err.split('\n')).toHaveLength(1);
    }
    expect((await cli(['status', '--resource', R, '--api-url', url])).out).toBe(`${R} is free`);
  });

  it('refuses a proxy variable that is not a URL as a usage error, naming it without its value', async () => {
    const url = await start();
    for (const [name, value] of [
      ['HTTPS_PROXY', 'user:s3cret@proxy.example:3128'],
      ['http_proxy', 'socks5://proxy.example:1080'],
    ] as const) {
      const args = ['acquire', '--resource', R, '--api-url', url];
      const result = await runMain(args, { [name]: value });
      expect(result.code).toBe(2);
      expect(result.err).toMatch(
        new RegExp(`^Invalid ${name} \\(value not shown\\)\\. Expected an http:// or https:// URL`),
      );
      expect(result.err).not.toContain('s3cret');
    }
    expect((await cli(['status', '--resource', R, '--api-url', url])).out).toBe(`${R} is free`);
  });

  it('steps aside with --queue newest: run exits 0 without running the command, acquire exits 1', async () => {
    const url = await start();
    const base = ['--resource', R, '--api-url', url, '--wait-timeout', '60s', '--queue', 'newest'];
    const held = await cli([
      'acquire',
      '--resource',
      R,
      '--api-url',
      url,
      '--actor-did',
      'did:web:ci.example.com:other',
    ]);
    expect(held.code).toBe(0);
    const waiting = async () => {
      const body = (await (await fetch(`${url}/api/v1/kernel/resources`)).json()) as {
        resources: Array<{ resource: string; queue: unknown[] }>;
      };
      return body.resources.find((r) => r.resource === R)?.queue.length ?? 0;
    };
    // Run 5 waits behind the holder, then run 6 of its lane starts waiting.
    const older = cli([
      'run',
      ...base,
      '--actor-did',
      'did:web:ci.example.com:run:5',
      ...lane(5, URL_5),
      '--',
      process.execPath,
      '-e',
      'process.exit(9)',
    ]);
    while ((await waiting()) < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const newer = cli([
      'acquire',
      ...base,
      '--actor-did',
      'did:web:ci.example.com:run:6',
      ...lane(6, URL_6),
    ]);
    const ran = await older;
    expect(ran.code).toBe(0);
    expect(ran.err).toContain(`lease-gate: superseded by ${URL_6}; the command did not run.`);
    // And an older run that arrives while run 6 waits is turned away at once.
    const late = await cli([
      'acquire',
      ...base,
      '--actor-did',
      'did:web:ci.example.com:run:4',
      ...lane(4, 'https://ci.example.com/acme/shop/-/pipelines/4'),
    ]);
    expect(late.code).toBe(1);
    expect(late.err).toContain(`superseded by ${URL_6} while waiting; nothing is held`);
    expect(await waiting()).toBe(1);
    await cli([
      'release',
      '--resource',
      R,
      '--api-url',
      url,
      '--actor-did',
      'did:web:ci.example.com:other',
    ]);
    expect((await newer).code).toBe(0);
  }, 60_000);

  it('lists the flags in the help of run and acquire', async () => {
    for (const command of ['run', 'acquire']) {
      const help = (await cli([command, '--help'])).out;
      for (const flag of [
        '--repository',
        '--workflow',
        '--ref',
        '--commit',
        '--run-number',
        '--run-attempt',
        '--run-url',
        '--queue',
      ])
        expect(help, `${command} ${flag}`).toContain(flag);
    }
  });
});
