import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { Pool, request } from 'undici';
import { percentile, type Row } from './stats.js';

/**
 * The kernel on PostgreSQL for the plane table (bench/plane.ts): replicas in
 * processes of their own (the committed CLI), and a handover across replicas
 * as blocking acquire does it (the release on one replica, the waiter woken by
 * NOTIFY, the grant on the other).
 */

export const URL =
  process.env.LEASE_GATE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const LEASE = '/api/v1/acp/coordination/lease';
const RELEASE = '/api/v1/acp/coordination/release';

/**
 * Fresh schemas on `admin`'s database for one bench part, each made after a CHECKPOINT (so no
 * earlier run's dirty pages are flushed during this one), and `drop` to remove them all.
 */
export function benchSchemas(admin: pg.Client) {
  const made: string[] = [];
  return {
    async fresh(): Promise<string> {
      const schema = `lease_gate_bench_${randomBytes(4).toString('hex')}`;
      made.push(schema);
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.query('CHECKPOINT').catch(() => undefined);
      return schema;
    },
    async drop(): Promise<void> {
      for (const schema of made)
        await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
    },
  };
}

export function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/cli/index.js', ...args], { stdio: 'ignore' });
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args[0]}: ${code}`)),
    );
  });
}

/**
 * A replica of the committed CLI (or the one at `cli`, a before to compare with) on `schema`,
 * on the database at `databaseUrl` (default URL).
 */
export function startReplica(
  schema: string,
  key: string,
  databaseUrl = URL,
  cli = 'dist/cli/index.js',
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [cli, 'kernel', '--port', '0', '--quiet', '--store', 'postgres'].concat([
      '--schema',
      schema,
      '--signing-key',
      key,
      '--pool-size',
      '10',
    ]),
    {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    // Bounded: a replica that never listens is killed, which rejects below.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child });
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica exited with ${code}: ${out}`));
    });
  });
}

/**
 * Blocking acquire across replicas: the waiter's lease request is held on
 * replica B (`Prefer: wait=20`) while the holder releases on replica A; B is
 * woken by A's NOTIFY and grants. Timed from the release sent to the grant
 * answered. Replicas tell the next in line to ask again after 500 ms, so a
 * handover well under that came from the wake.
 */
export async function handover(from: string, to: string, rounds: number) {
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
  const spans: Array<{ sentAt: number; answeredAt: number }> = [];
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
    // Each round's span on the wall clock (ms since the epoch), to match a replica's own timestamps.
    spans.push({
      sentAt: performance.timeOrigin + t,
      answeredAt: performance.timeOrigin + granted.at,
    });
    await post(b, RELEASE, waiter);
  }
  await Promise.all([a.close(), b.close()]);
  return { rounds, p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99), samples, spans };
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

/** SIGTERM, and SIGKILL when it is still there after 5 s; resolves once it exited. */
export function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export type { Row };
