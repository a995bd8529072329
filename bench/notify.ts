import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { percentile } from './stats.js';
import { measure } from './throughput.js';
import { startKernel } from './spawn.js';

/**
 * Notifications: the kernel (memory store) under the throughput load with and
 * without `--notify` to a receiver on loopback (alternated, `rounds` pairs), and
 * the delivery latency seen by the receiver: its receive time minus the event's
 * `atMs` (the kernel's epoch-aligned clock at the decision, on the same host), for
 * every notification, a batch's one by one.
 */
export async function notifyBench(rounds: number, log: (line: string) => void) {
  const dir = '.tmp/bench-notify';
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const secretFile = `${dir}/secret`;
  writeFileSync(secretFile, 'bench-notify-secret-0123456789');
  const latencies: number[] = [];
  let received = 0;
  let notifications = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const now = Date.now();
      received += 1;
      // A batch carries several notifications: each one's latency counts.
      const parsed = JSON.parse(body) as { atMs: number; notifications?: { atMs: number }[] };
      for (const { atMs } of parsed.notifications ?? [parsed]) {
        notifications += 1;
        if (latencies.length < 1_000_000) latencies.push(now - atMs);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const off: number[] = [];
  const on: number[] = [];
  try {
    for (let i = 0; i < rounds; i += 1) {
      log(`  round ${i + 1}/${rounds}: notifications off, then on`);
      off.push((await measure('off', await startKernel())).requestsPerSecond);
      const args = ['--notify', url, '--notify-secret-file', secretFile];
      on.push((await measure('on', await startKernel(args))).requestsPerSecond);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
  const offMedian = percentile(off, 50);
  const onMedian = percentile(on, 50);
  return {
    offRequestsPerSecond: offMedian,
    onRequestsPerSecond: onMedian,
    ratio: onMedian / offMedian,
    requests: received,
    delivered: notifications,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}
