import { Pool } from 'undici';
import { LeaseKernel } from '../src/kernel/core.js';
import { startKernel } from './processes.js';
import { percentile } from './stats.js';

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

/**
 * The CLI's kernel in its own process; 16 keep-alive connections alternate
 * lease and release. The load comes from undici's pool, the lightest generator
 * at hand, so that the figure is the kernel's rather than a client's.
 */
export async function overHttp(clients: number, seconds: number) {
  const kernel = await startKernel();
  const pool = new Pool(kernel.url, { connections: clients });
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const send = async (path: string, body: string) => {
    const t = performance.now();
    const res = await pool.request({
      method: 'POST',
      path,
      body,
      headers: { 'content-type': 'application/json' },
    });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`kernel answered ${res.statusCode}`);
    latencies.push(performance.now() - t);
  };
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const body = JSON.stringify({ resource: `lock:http/${i}`, actorDid: `did:web:bench:c${i}` });
      while (performance.now() < deadline) {
        await send('/api/v1/acp/coordination/lease', body);
        await send('/api/v1/acp/coordination/release', body);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  kernel.stop();
  return {
    clients,
    requestsPerSecond: latencies.length / elapsed,
    p99Ms: percentile(latencies, 99),
    p50Ms: percentile(latencies, 50),
  };
}
