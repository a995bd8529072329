import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Pool, request } from 'undici';
import { percentile, type Row } from './stats.js';

/**
 * The kernel on PostgreSQL, 1 and 2 replicas (each its own process, the
 * committed CLI): lease + release throughput, and a handover across replicas
 * as blocking acquire does it (the release on one replica, the waiter woken by
 * NOTIFY, the grant on the other). Skipped with a note when no PostgreSQL answers.
 */

const URL = process.env.LEASE_GATE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const LEASE = '/api/v1/acp/coordination/lease';
const RELEASE = '/api/v1/acp/coordination/release';

type Add = (section: string, metric: string, value: number | string, unit: string) => void;

export async function postgresBench(add: Add, log: (line: string) => void): Promise<unknown> {
  const admin = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 2_000 });
  admin.on('error', () => undefined);
  try {
    await admin.connect();
  } catch (error) {
    add('postgres', 'skipped', `no PostgreSQL at ${URL}: ${(error as Error).message}`, '');
    return { skipped: true };
  }
  const schema = `lease_gate_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-bench-pg-'));
  await run(['keygen', '--out', dir]);
  const raw: Record<string, unknown> = {};
  try {
    for (const count of [1, 2]) {
      log(`postgres: ${count} replica(s) …`);
      const replicas = await Promise.all(
        Array.from({ length: count }, () => startReplica(schema, join(dir, 'ledger.key'))),
      );
      const section = `postgres, ${count} replica${count > 1 ? 's' : ''}`;
      const load = await throughput(
        replicas.map((r) => r.url),
        16,
        8,
      );
      add(section, 'lease + release, 16 clients', load.requestsPerSecond, 'req/s');
      add(section, 'p50 latency', load.p50Ms, 'ms');
      add(section, 'p99 latency', load.p99Ms, 'ms');
      raw[`replicas${count}`] = load;
      if (count === 2) {
        const hand = await handover(replicas[0]!.url, replicas[1]!.url, 100);
        add(section, 'handover across replicas (held request, NOTIFY) p50', hand.p50Ms, 'ms');
        add(section, 'handover across replicas (held request, NOTIFY) p99', hand.p99Ms, 'ms');
        raw.handover = hand;
      }
      for (const r of replicas) r.child.kill('SIGTERM');
    }
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
  }
  return raw;
}

function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/cli/index.js', ...args], { stdio: 'ignore' });
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args[0]}: ${code}`)),
    );
  });
}

function startReplica(schema: string, key: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['dist/cli/index.js', 'kernel', '--port', '0', '--quiet', '--store', 'postgres'].concat([
      '--schema',
      schema,
      '--signing-key',
      key,
      '--pool-size',
      '10',
    ]),
    {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: URL },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ url: match[1]!, child });
    });
    child.on('close', (code) => reject(new Error(`replica exited with ${code}: ${out}`)));
  });
}

/** Clients spread over the replicas, each on its own resource, alternating lease and release. */
async function throughput(urls: string[], clients: number, seconds: number) {
  const pools = urls.map((url) => new Pool(url, { connections: Math.ceil(clients / urls.length) }));
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const pool = pools[i % pools.length]!;
      const body = JSON.stringify({ resource: `lock:pg/${i}`, actorDid: `did:web:bench:c${i}` });
      while (performance.now() < deadline) {
        for (const path of [LEASE, RELEASE]) {
          const t = performance.now();
          const res = await pool.request({
            method: 'POST',
            path,
            body,
            headers: { 'content-type': 'application/json' },
          });
          await res.body.text();
          if (res.statusCode !== 200) throw new Error(`replica answered ${res.statusCode}`);
          latencies.push(performance.now() - t);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(pools.map((p) => p.close()));
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

/**
 * Blocking acquire across replicas: the waiter's lease request is held on
 * replica B (`Prefer: wait=20`) while the holder releases on replica A; B is
 * woken by A's NOTIFY and grants. Timed from the release sent to the grant
 * answered. Replicas tell the next in line to ask again after 500 ms, so a
 * handover well under that came from the wake.
 */
async function handover(from: string, to: string, rounds: number) {
  const [a, b] = [new Pool(from, { connections: 2 }), new Pool(to, { connections: 2 })];
  const post = async (pool: Pool, path: string, actorDid: string, prefer?: string) => {
    const res = await pool.request({
      method: 'POST',
      path,
      body: JSON.stringify({ resource: 'lock:pg/handover', actorDid }),
      headers: { 'content-type': 'application/json', ...(prefer ? { prefer } : {}) },
    });
    return {
      status: res.statusCode,
      applied: res.headers['preference-applied'],
      text: await res.body.text(),
      at: performance.now(),
    };
  };
  const samples: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const [holder, waiter] =
      i % 2 ? ['did:web:bench:x', 'did:web:bench:y'] : ['did:web:bench:y', 'did:web:bench:x'];
    if ((await post(a, LEASE, holder)).status !== 200) throw new Error('holder not granted');
    const held = post(b, LEASE, waiter, 'wait=20');
    await waitingOn(to, waiter);
    const t = performance.now();
    await post(a, RELEASE, holder);
    const granted = await held;
    if (granted.status !== 200 || granted.applied !== 'wait=20') {
      throw new Error(`waiter not granted by a held request: ${granted.status} ${granted.text}`);
    }
    samples.push(granted.at - t);
    await post(b, RELEASE, waiter);
  }
  await Promise.all([a.close(), b.close()]);
  return { rounds, p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
}

/** Until the replica's overview shows the waiter queued (its request is held); bounded. */
async function waitingOn(url: string, actorDid: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    const res = await request(`${url}/api/v1/kernel/resources`);
    const text = await res.body.text();
    if (text.includes(`"actorDid":"${actorDid}"`)) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`${actorDid} was never held`);
}

export type { Row };
