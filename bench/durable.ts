import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startKernel } from './spawn.js';

/** Lease/release pairs from 16 keep-alive clients for `seconds`, after `live` leases are taken. */
async function changesPerSecond(args: string[], live: number, seconds: number): Promise<number> {
  const kernel = await startKernel(args);
  const pool = new Pool(kernel.url, { connections: 16 });
  const post = async (path: string, body: string) => {
    const res = await pool.request({
      method: 'POST',
      path,
      body,
      headers: { 'content-type': 'application/json' },
    });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`kernel answered ${res.statusCode}`);
  };
  for (let i = 0; i < live; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, live - i) }, (_, j) =>
        post(
          '/api/v1/acp/coordination/lease',
          JSON.stringify({ resource: `lock:live/${i + j}`, actorDid: 'did:web:bench:live' }),
        ),
      ),
    );
  }
  let changes = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: 16 }, async (_, i) => {
      const body = JSON.stringify({ resource: `lock:bench/${i}`, actorDid: `did:web:bench:c${i}` });
      while (performance.now() < deadline) {
        await post('/api/v1/acp/coordination/lease', body);
        await post('/api/v1/acp/coordination/release', body);
        changes += 2;
      }
    }),
  );
  const rate = changes / ((performance.now() - started) / 1000);
  await pool.close();
  await kernel.stop();
  return rate;
}

/**
 * The durable store's changes per second (every change written and fdatasync'ed,
 * grouped per event-loop turn), and the memory kernel with 20,000 live leases
 * against none.
 */
export async function durableBench(seconds = 5) {
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-durable-'));
  const stateChangesPerSecond = await changesPerSecond(
    ['--data-prefix', join(dir, 'state.json')],
    0,
    seconds,
  );
  const long = ['--ttl-ms', '3600000'];
  const noneLive = await changesPerSecond(long, 0, seconds);
  const liveLeases = await changesPerSecond(long, 20_000, seconds);
  return { stateChangesPerSecond, noneLive, liveLeases, liveRatio: liveLeases / noneLive };
}
