import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { keyHash } from '../src/kernel/auth/keys.js';
import { LeaseKernel } from '../src/kernel/rules/core.js';
import { startFakeIssuer } from '../test/support/fake-oidc.js';
import type { LoadResult } from './loadgen.js';
import { runRole, startKernel, startRole, type Spawned } from './spawn.js';

export const CLIENTS = 16;
const SECONDS = 6;
const PRELOAD_LIMIT_SECONDS = 30;

/** The pure core: lease + release pairs per second, on distinct resources. */
export function inProcess(pairs: number) {
  const kernel = new LeaseKernel();
  const started = performance.now();
  for (let i = 0; i < pairs; i += 1) {
    const resource = `lock:r${i % 1_000}`;
    kernel.lease(resource, 'did:web:bench:a', i);
    kernel.release(resource, 'did:web:bench:a', i);
    if (i % 10_000 === 0) kernel.drainEvents();
  }
  return { pairsPerSecond: pairs / ((performance.now() - started) / 1000) };
}

export type HttpTarget = LoadResult & { target: string; short?: string };

/**
 * One server in its own process, 16 keep-alive connections from the load
 * process alternating lease and release (the echo server gets the same bytes).
 * With `preload`, that many live leases are taken first, for at most
 * PRELOAD_LIMIT_SECONDS; when that is too short the row names the count reached.
 */
export async function measure(
  target: string,
  server: Spawned,
  preload = 0,
  auth: { bearer: string; didPrefix: string } | undefined = undefined,
): Promise<HttpTarget> {
  try {
    const args = [server.url, CLIENTS, SECONDS, preload, PRELOAD_LIMIT_SECONDS].map(String);
    if (auth) args.push(auth.bearer, auth.didPrefix);
    const result = await runRole<LoadResult>('load', args, 120_000);
    if (result.preloaded >= preload) return { target, ...result };
    // Measured all the same, with the leases it did take, and named as such.
    const short = `${result.preloaded} live leases: ${preload} not taken within ${PRELOAD_LIMIT_SECONDS} s`;
    return { ...result, target: target.replace(`${preload} live leases`, short), short };
  } finally {
    await server.stop();
  }
}

export async function overHttp(stateDir: string, liveLeases: number): Promise<HttpTarget[]> {
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const long = ['--ttl-ms', '3600000'];
  const results = [
    await measure('node:http JSON echo', await startRole('echo')),
    await measure('kernel, memory store', await startKernel()),
    ...(await credentialRows(stateDir)),
    await measure(
      'kernel, durable store',
      await startKernel(['--data-prefix', `${stateDir}/a.json`]),
    ),
    await measure(
      `kernel, memory store, ${liveLeases} live leases`,
      await startKernel(long),
      liveLeases,
    ),
    await measure(
      `kernel, durable store, ${liveLeases} live leases`,
      await startKernel([...long, '--data-prefix', `${stateDir}/b.json`]),
      liveLeases,
    ),
  ];
  rmSync(stateDir, { recursive: true, force: true });
  return results;
}

/**
 * The cost of checking a credential on every request, beside the keyless row of the same run:
 * a scoped key (a SHA-256 and a map lookup) and an OIDC token (an RS256 signature and the
 * claims, verified by jose on every request; the keys are fetched once from a fake issuer).
 */
export async function credentialRows(stateDir: string): Promise<HttpTarget[]> {
  const issuer = await startFakeIssuer();
  try {
    const token = await issuer.sign({ expiresInS: 3_600 });
    const didPrefix = 'did:web:github.com:acme:shop:actions:runs:4242:attempts:1:jobs:bench:';
    const policy = `${stateDir}/policy.json`;
    const keys = `${stateDir}/keys.json`;
    const KEY = 'bench-scoped-key';
    writeFileSync(
      policy,
      JSON.stringify({
        rules: [{ name: 'bench', resources: ['lock:*'], claims: { repository: 'acme/shop' } }],
      }),
    );
    writeFileSync(
      keys,
      JSON.stringify({
        keys: [
          {
            name: 'bench',
            sha256: keyHash(KEY),
            actors: ['did:web:bench:*'],
            resources: ['lock:*'],
          },
        ],
      }),
    );
    const oidc = ['--oidc-issuer', issuer.url, '--oidc-audience', 'lease-gate', '--policy', policy];
    return [
      await measure('kernel, memory store, scoped key', await startKernel(['--keys', keys]), 0, {
        bearer: KEY,
        didPrefix: 'did:web:bench:',
      }),
      await measure(
        'kernel, memory store, OIDC token (RS256)',
        await startKernel([...oidc, '--oidc-did-host', 'github.com']),
        0,
        {
          bearer: token,
          didPrefix,
        },
      ),
    ];
  } finally {
    await issuer.close();
  }
}

export interface RedisRow {
  target: string;
  requestsPerSecond?: number;
  p50Ms?: number;
  p99Ms?: number;
  skipped?: string;
}

const REDIS = { host: '127.0.0.1', port: 6379 };

function redisAnswers(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(REDIS.port, REDIS.host);
    const timer = setTimeout(() => done('no PONG within 2 s'), 2_000);
    const done = (why?: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    socket.once('error', (error) => done(`${REDIS.host}:${REDIS.port}: ${error.message}`));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d: Buffer) =>
      done(d.toString().startsWith('+PONG') ? undefined : 'no PONG'),
    );
  });
}

const COMMANDS: [string, string[]][] = [
  ['Redis SET NX PX (take)', ['SET', 'lock:bench:__rand_int__', 'v', 'NX', 'PX', '30000']],
  [
    'Redis compare-and-delete EVAL (give back)',
    [
      'EVAL',
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
      '1',
      'lock:bench:__rand_int__',
      'v',
    ],
  ],
];

/** redis-benchmark with the same 16 clients, when it is installed and Redis answers. */
export async function redisRows(): Promise<RedisRow[]> {
  const which = spawnSync('redis-benchmark', ['--version'], { encoding: 'utf8' });
  const why =
    which.status === 0
      ? await redisAnswers()
      : 'redis-benchmark not installed (Debian package redis-tools)';
  if (why) return COMMANDS.map(([target]) => ({ target, skipped: why }));
  return COMMANDS.map(([target, command]) => {
    const result = spawnSync(
      'redis-benchmark',
      [
        ...['-h', REDIS.host, '-p', String(REDIS.port), '-c', String(CLIENTS)],
        ...['-n', '200000', '-r', '100000', '--csv', ...command],
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const row = result.stdout?.trim().split('\n').at(-1)?.split('","');
    const rps = Number(row?.[1]);
    if (result.status !== 0 || !Number.isFinite(rps))
      return {
        target,
        skipped: `redis-benchmark failed: ${result.stderr?.trim() || result.status}`,
      };
    return { target, requestsPerSecond: rps, p50Ms: Number(row?.[4]), p99Ms: Number(row?.[6]) };
  });
}
