import { Pool } from 'undici';
import {
  etcdGrantBody,
  etcdLeaseId,
  etcdRevokeBody,
  etcdTxnBody,
  etcdTxnSucceeded,
} from './etcd.js';
import { percentile } from './stats.js';
import { causeText } from '../src/errors.js';

/**
 * The plane table's load (`role cycles`, in a process of its own): `clients`
 * keep-alive undici clients spread over `urls` (client i on urls[i mod n], so
 * replicas share the load evenly), each doing cycles — a lease and its release —
 * on resource i mod `resources`, after `warmupSeconds` that are not counted.
 * With fewer resources than clients the lease waits its turn: on a kernel a
 * blocking acquire (`Prefer: wait=10`, held until granted); etcd has no held
 * request, so a loser asks again after RETRY_MS, as an etcd lock client that
 * does not watch does. A cycle's latency runs from its first lease request
 * sent to its release answered, waiting included.
 */

export interface CycleOptions {
  plane: 'kernel' | 'etcd';
  urls: string[];
  clients: number;
  resources: number;
  seconds: number;
  warmupSeconds?: number;
}

export interface CycleResult {
  cycles: number;
  cyclesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  firstError?: string;
}

const LEASE = '/api/v1/acp/coordination/lease';
const RELEASE = '/api/v1/acp/coordination/release';
const RETRY_MS = 2;
const JSON_HEADERS = { 'content-type': 'application/json' };

type Post = (
  path: string,
  body: string,
  headers?: Record<string, string>,
) => Promise<{ status: number; text: string; applied?: string }>;

function poster(pool: Pool): Post {
  return async (path, body, headers = {}) => {
    const res = await pool.request({
      method: 'POST',
      path,
      body,
      headers: { ...JSON_HEADERS, ...headers },
    });
    const applied = res.headers['preference-applied'];
    return {
      status: res.statusCode,
      text: await res.body.text(),
      ...(typeof applied === 'string' ? { applied } : {}),
    };
  };
}

/** One kernel cycle on `resource`; false when the plane answered something else than a grant and a release. */
async function kernelCycle(
  post: Post,
  resource: string,
  actorDid: string,
  shared: boolean,
  until: number,
) {
  const body = JSON.stringify({ resource, actorDid });
  for (;;) {
    const lease = await post(LEASE, body, shared ? { prefer: 'wait=10' } : {});
    if (lease.status === 200) break;
    if (lease.status !== 409 || !shared || performance.now() > until)
      throw new Error(`lease answered ${lease.status}: ${lease.text.slice(0, 200)}`);
    // Held and not waited on (the plane ignored Prefer or the wait ran out): its back-off, bounded.
    const waitMs = Number(
      (JSON.parse(lease.text) as { stampede?: { waitMs?: number } }).stampede?.waitMs ?? 50,
    );
    await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(waitMs, 1), 50)));
  }
  const release = await post(RELEASE, body);
  if (release.status !== 200)
    throw new Error(`release answered ${release.status}: ${release.text.slice(0, 200)}`);
}

async function etcdCycle(post: Post, key: string, value: string, until: number) {
  const grant = await post('/v3/lease/grant', etcdGrantBody());
  if (grant.status !== 200)
    throw new Error(`etcd lease grant answered ${grant.status}: ${grant.text.slice(0, 200)}`);
  const id = etcdLeaseId(JSON.parse(grant.text));
  const txn = etcdTxnBody(key, value, id);
  for (;;) {
    const put = await post('/v3/kv/txn', txn);
    if (put.status !== 200)
      throw new Error(`etcd txn answered ${put.status}: ${put.text.slice(0, 200)}`);
    if (etcdTxnSucceeded(JSON.parse(put.text))) break;
    if (performance.now() > until) throw new Error(`etcd key ${key} never free`);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  const revoke = await post('/v3/lease/revoke', etcdRevokeBody(id));
  if (revoke.status !== 200)
    throw new Error(`etcd lease revoke answered ${revoke.status}: ${revoke.text.slice(0, 200)}`);
}

export async function cycles(options: CycleOptions): Promise<CycleResult> {
  const { urls, clients, resources } = options;
  if (urls.length === 0 || clients < 1 || resources < 1)
    throw new Error('cycles: no url, client or resource');
  const pools = urls.map(
    (url, u) =>
      new Pool(url, {
        connections: Math.ceil(clients / urls.length) + (u < clients % urls.length ? 1 : 0),
      }),
  );
  const shared = resources < clients;
  const started = performance.now();
  const measureFrom = started + (options.warmupSeconds ?? 1) * 1000;
  const deadline = measureFrom + options.seconds * 1000;
  // A waiter stuck past this fails the run rather than hanging it.
  const until = deadline + 30_000;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  try {
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const post = poster(pools[c % pools.length]!);
        const r = c % resources;
        while (performance.now() < deadline) {
          const sent = performance.now();
          try {
            if (options.plane === 'etcd') await etcdCycle(post, `lock/bench/${r}`, `c${c}`, until);
            else await kernelCycle(post, `lock:plane/${r}`, `did:web:bench:c${c}`, shared, until);
          } catch (error) {
            errors += 1;
            firstError ??= causeText(error);
            if (errors > 100)
              throw new Error(`cycles: more than 100 errors, the first: ${firstError}`);
            continue;
          }
          if (sent >= measureFrom) latencies.push(performance.now() - sent);
        }
      }),
    );
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  return {
    cycles: latencies.length,
    cyclesPerSecond: latencies.length / options.seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors,
    ...(firstError ? { firstError } : {}),
  };
}

/**
 * `role changes`: `count` ledger entries written as fast as the kernel takes
 * them — `clients` keep-alive clients, each alternating a lease and a release
 * of its own resource (each answer is one entry: a grant or a release).
 */
export async function changes(url: string, count: number, clients: number, limitSeconds: number) {
  const pool = new Pool(url, { connections: clients });
  const post = poster(pool);
  const deadline = performance.now() + limitSeconds * 1000;
  const started = performance.now();
  let made = 0;
  let sent = 0;
  try {
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const body = JSON.stringify({
          resource: `lock:long/${c}`,
          actorDid: `did:web:bench:long${c}`,
        });
        // Pairs, so every resource ends released: the kernel holds no live lease afterwards.
        while (sent + 2 <= count && performance.now() < deadline) {
          sent += 2;
          for (const path of [LEASE, RELEASE]) {
            const answer = await post(path, body);
            if (answer.status !== 200)
              throw new Error(`${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
            made += 1;
          }
        }
      }),
    );
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { changes: made, seconds, changesPerSecond: made / seconds };
}
