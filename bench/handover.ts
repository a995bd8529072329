import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitForLease } from '../src/gate/wait.js';
import { LeaseKernel, type KernelEvent } from '../src/kernel/core.js';
import { createKernelHandler, epochMonotonic } from '../src/kernel/server.js';
import { memoryStore } from '../src/kernel/store.js';
import { createPlaneClient, type PlaneClient } from '../src/plane/client.js';
import { realSleep, systemClock } from '../src/plane/time.js';
import { max, mean, percentile } from './stats.js';

const RESOURCE = 'lock:deploy/production';

export interface HandoverResult {
  plane: string;
  handovers: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  requests: number;
  requestsPerWaiterPerSecond: number;
  fairness: number;
  grantsPerAgent: { min: number; max: number };
  /** Grants that did not follow the order in which agents first asked. */
  outOfOrder: number;
  starved: number;
  seconds: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A TTL-only lock: a waiter is told to come back when the holder's lease runs out. */
function ttlOnlyPlane(
  ttlMs: number,
  now: () => number,
  events: KernelEvent[],
  seen: (actorDid: string) => void,
): Handler {
  const leases = new Map<string, { holder: string; id: string; expiresAtMs: number }>();
  let fence = 0;
  return (req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const { resource, actorDid } = JSON.parse(text) as { resource: string; actorDid: string };
      if (!req.url?.endsWith('/release')) seen(actorDid);
      const t = now();
      const current = leases.get(resource);
      const live = current && current.expiresAtMs > t ? current : undefined;
      let status = 200;
      let body: unknown;
      if (req.url?.endsWith('/release')) {
        const mine = live?.holder === actorDid;
        if (mine) {
          leases.delete(resource);
          events.push({ kind: 'release', atMs: t, resource, actorDid, leaseId: live.id, fence: 0 });
        }
        body = { ok: true, released: mine, releasedIds: mine ? [live.id] : [] };
      } else if (!live || live.holder === actorDid) {
        const lease = {
          holder: actorDid,
          id: live?.id ?? `lease_${(fence += 1)}`,
          expiresAtMs: t + ttlMs,
        };
        leases.set(resource, lease);
        if (!live)
          events.push({ kind: 'grant', atMs: t, resource, actorDid, leaseId: lease.id, fence });
        body = { ok: true, lease: { ...lease, resource } };
      } else {
        status = 409;
        body = {
          ok: false,
          reason: 'lease_held',
          holder: live.holder,
          stampede: { waitMs: Math.max(1, live.expiresAtMs - t) },
        };
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  };
}

/**
 * Eight agents contend for one resource through the real client and wait loop;
 * each holds for a random 50–300 ms, then releases and asks again.
 */
export async function handover(options: {
  plane: 'kernel' | 'ttl-only';
  ttlMs: number;
  handovers: number;
  agents?: number;
}): Promise<HandoverResult> {
  const now = epochMonotonic();
  const events: KernelEvent[] = [];
  // The order in which the plane first saw each agent ask, per wave.
  let arrival = new Map<string, number>();
  const seen = (actorDid: string) => {
    if (!arrival.has(actorDid)) arrival.set(actorDid, arrival.size);
  };
  const handler: Handler =
    options.plane === 'kernel'
      ? (() => {
          const kernel = new LeaseKernel({ ttlMs: options.ttlMs });
          const lease = kernel.lease.bind(kernel);
          kernel.lease = (resource, actorDid, at) => {
            seen(actorDid);
            return lease(resource, actorDid, at);
          };
          const h = createKernelHandler({
            kernel,
            store: memoryStore(),
            now,
            onEvents: (batch) => events.push(...batch),
          });
          return (req, res) => void h(req, res);
        })()
      : ttlOnlyPlane(options.ttlMs, now, events, seen);
  const server = await serve(handler);
  const agents = options.agents ?? 8;
  const grants = new Array<number>(agents).fill(0);
  const waits: number[] = [];
  let waitingRequests = 0;
  let requests = 0;
  let outOfOrder = 0;
  const started = performance.now();
  const waves = Math.ceil(options.handovers / (agents - 1));

  // Each wave is a burst of deploys queued at once: every agent asks, holds for
  // 50–300 ms, releases and is done, as one job does.
  for (let wave = 0; wave < waves; wave += 1) {
    arrival = new Map();
    const granted: number[] = [];
    await Promise.all(
      Array.from({ length: agents }, async (_, i) => {
        const actorDid = `did:web:bench:agent${i}`;
        const inner = createPlaneClient({ apiUrl: server.url });
        const client: Pick<PlaneClient, 'lease' | 'release'> = {
          lease: (req, call) => {
            requests += 1;
            return inner.lease(req, call);
          },
          release: (req, call) => {
            requests += 1;
            return inner.release(req, call);
          },
        };
        await realSleep(Math.random() * 50);
        const result = await waitForLease({
          client,
          resource: RESOURCE,
          actorDid,
          timeoutMs: 600_000,
          clock: systemClock,
          sleep: realSleep,
          random: Math.random,
        });
        if (result.outcome !== 'granted') throw new Error(`agent ${i}: ${result.outcome}`);
        granted.push(i);
        waitingRequests += result.asks - 1;
        waits.push(result.waitedMs);
        grants[i]! += 1;
        await realSleep(50 + Math.random() * 250);
        await client.release({ resource: RESOURCE, actorDid });
      }),
    );
    const order = (agent: number) => arrival.get(`did:web:bench:agent${agent}`)!;
    const byArrival = [...granted].sort((a, b) => order(a) - order(b));
    outOfOrder += granted.filter((agent, k) => byArrival[k] !== agent).length;
  }
  await server.close();
  const seconds = (performance.now() - started) / 1000;

  const latencies: number[] = [];
  events.forEach((event, i) => {
    const next = events[i + 1];
    if (event.kind === 'release' && next?.kind === 'grant') latencies.push(next.atMs - event.atMs);
  });
  const waitSeconds = waits.reduce((a, b) => a + b, 0) / 1000;
  return {
    plane: options.plane,
    handovers: latencies.length,
    latencyMs: {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      max: max(latencies),
    },
    requests,
    requestsPerWaiterPerSecond: waitSeconds > 0 ? waitingRequests / waitSeconds : 0,
    fairness: max(waits) / (mean(waits) || 1),
    grantsPerAgent: { min: Math.min(...grants), max: Math.max(...grants) },
    outOfOrder,
    starved: grants.filter((g) => g === 0).length,
    seconds,
  };
}
