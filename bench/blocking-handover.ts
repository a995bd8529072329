import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { max, percentile } from './stats.js';

const LEASE = '/api/v1/acp/coordination/lease';
const RELEASE = '/api/v1/acp/coordination/release';
const RESOURCE = 'lock:deploy/production';

export interface BlockingHandoverResult {
  store: 'memory' | 'file';
  waiters: number;
  samples: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  /** Lease requests per grant: 1 means every wait was one held request, nothing polled. */
  requestsPerGrant: number;
  /** Grants that went to someone other than the longest held waiter. */
  outOfOrder: number;
}

/** The committed CLI's kernel in its own process; resolves with its URL. */
async function startKernel(cli: string, args: string[]) {
  const child = spawn(process.execPath, [cli, 'kernel', '--port', '0', '--quiet', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on('close', (code) => reject(new Error(`kernel exited with ${code}: ${output}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/**
 * Agents contend for one resource with `Prefer: wait=20`; each holds briefly,
 * releases, and asks again at once, so the others are always held waiting.
 * A sample is the time from a release being sent to the next holder's grant
 * arriving (both seen by this process; the kernel runs in its own).
 */
export async function blockingHandover(options: {
  cli: string;
  store: 'memory' | 'file';
  waiters?: number;
  samples?: number;
  holdMs?: number;
}): Promise<BlockingHandoverResult> {
  const agents = (options.waiters ?? 8) + 1;
  const wanted = options.samples ?? 240;
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-blocking-'));
  const kernel = await startKernel(
    options.cli,
    options.store === 'file' ? ['--data-prefix', join(dir, 'state.json')] : [],
  );
  const dispatcher = new Agent({ connections: agents * 2 });
  const post = async (path: string, actorDid: string, prefer?: string) => {
    const res = await request(kernel.url + path, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', ...(prefer ? { prefer } : {}) },
      body: JSON.stringify({ resource: RESOURCE, actorDid }),
    });
    return (await res.body.json()) as { ok: boolean; lease?: { holder: string } };
  };

  const samples: number[] = [];
  const queue: string[] = [];
  let releasedAt: number | undefined;
  let leaseRequests = 0;
  let grants = 0;
  let outOfOrder = 0;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const agent = async (index: number) => {
    const did = `did:web:bench.example:agent:${index}`;
    while (samples.length < wanted) {
      queue.push(did);
      let granted = false;
      // Bounded: a held request ends in at most 20 s; the run ends with the samples.
      for (let tries = 0; !granted && tries < 100 && samples.length < wanted; tries += 1) {
        leaseRequests += 1;
        granted = (await post(LEASE, did, 'wait=20')).ok;
      }
      const grantedAt = performance.now();
      if (!granted) break;
      grants += 1;
      if (queue[0] !== did) outOfOrder += 1;
      queue.splice(queue.indexOf(did), 1);
      if (releasedAt !== undefined) samples.push(grantedAt - releasedAt);
      releasedAt = undefined;
      await sleep(options.holdMs ?? 5);
      releasedAt = performance.now();
      await post(RELEASE, did);
    }
  };
  try {
    await Promise.all(Array.from({ length: agents }, (_, i) => agent(i)));
  } finally {
    kernel.stop();
    await dispatcher.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const round = (ms: number) => Number(ms.toFixed(2));
  return {
    store: options.store,
    waiters: agents - 1,
    samples: samples.length,
    latencyMs: {
      p50: round(percentile(samples, 50)),
      p95: round(percentile(samples, 95)),
      p99: round(percentile(samples, 99)),
      max: round(max(samples)),
    },
    requestsPerGrant: Number((leaseRequests / grants).toFixed(3)),
    outOfOrder,
  };
}

/**
 * Plane load while waiting: one agent holds for `holdMs`; the waiters ask with
 * `Prefer: wait=20` (re-asking when a held answer comes back refused) until it
 * releases. Lease requests per waiter per second of that hold.
 */
export async function loadWhileWaiting(options: {
  cli: string;
  waiters?: number;
  holdMs?: number;
}): Promise<{ waiters: number; holdMs: number; requestsPerWaiterPerSecond: number }> {
  const waiters = options.waiters ?? 8;
  const holdMs = options.holdMs ?? 10_000;
  const kernel = await startKernel(options.cli, []);
  const dispatcher = new Agent({ connections: waiters * 2 });
  const post = async (path: string, actorDid: string, prefer?: string) => {
    const res = await request(kernel.url + path, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', ...(prefer ? { prefer } : {}) },
      body: JSON.stringify({ resource: RESOURCE, actorDid }),
    });
    return (await res.body.json()) as { ok: boolean };
  };
  const holder = 'did:web:bench.example:agent:holder';
  let requests = 0;
  let releasing = false;
  try {
    await post(LEASE, holder);
    const started = performance.now();
    const waiting = Array.from({ length: waiters }, async (_, i) => {
      const did = `did:web:bench.example:agent:${i}`;
      for (let tries = 0; tries < 100; tries += 1) {
        if (!releasing) requests += 1;
        if ((await post(LEASE, did, 'wait=20')).ok) break;
      }
      await post(RELEASE, did);
    });
    await new Promise((resolve) => setTimeout(resolve, holdMs));
    releasing = true;
    const seconds = (performance.now() - started) / 1_000;
    await post(RELEASE, holder);
    await Promise.all(waiting);
    return {
      waiters,
      holdMs,
      requestsPerWaiterPerSecond: Number((requests / waiters / seconds).toFixed(3)),
    };
  } finally {
    kernel.stop();
    await dispatcher.close();
  }
}
