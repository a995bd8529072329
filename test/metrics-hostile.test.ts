import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AppMetrics } from '../src/app/metrics.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { startFakeGitHub } from './support/fake-github-app.js';
import { writeAppConfig } from './support/app-harness.js';
import { post } from './support/http.js';
import { runCli } from './support/kernel-process.js';
import { A, B, LEASE, R } from './support/names.js';

/**
 * /metrics tried as a hostile user and an operator would (#57): what the rules decide without a
 * reply (a lapse, a waiter leaving) must be counted, and never fail the batch it came in.
 */

const METRICS = 'metrics-hostile-metrics-key';
const TTL_MS = 200;

const running: RunningKernel[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((k) => k.close()));
});

async function scrape(url: string): Promise<string> {
  const res = await request(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
  return res.body.text();
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics after a lapse', () => {
  it('counts the lapse, and the next grant is answered 200, not failed by the counting', async () => {
    const errors: string[] = [];
    const kernel = await startKernelServer({
      port: 0,
      metricsKey: METRICS,
      table: new ResourceTable({ ttlMs: TTL_MS, nextInLineWaitMs: 50 }),
      log: (line: string) => errors.push(line),
    });
    running.push(kernel);
    const url = kernel.url;
    expect((await post(url, LEASE, { resource: R, actorDid: A })).status).toBe(200);
    // The lease lapses on the kernel's own timer (no renewal); wait for the count, bounded.
    let lapses: number | undefined;
    for (let tries = 0; tries < 100 && lapses === undefined; tries++) {
      await sleep(TTL_MS / 2);
      lapses = sample(await scrape(url), `lease_gate_lapses_total{resource="${R}"}`);
    }
    expect(lapses).toBe(1);
    const next = await post(url, LEASE, { resource: R, actorDid: B });
    expect(next.status).toBe(200);
    const text = await scrape(url);
    expect(text).not.toMatch(/^lease_gate_store_commit_failures_total\{[^}]*\} [1-9]/m);
    expect(sample(text, `lease_gate_hold_seconds_count{resource="${R}"}`)).toBe(1);
    expect(errors.filter((l) => l.includes('TypeError'))).toEqual([]);
  });
});

describe('an observer that throws', () => {
  it('is logged, and the durable grant is still answered 200 and armed', async () => {
    const lines: string[] = [];
    const kernel = await startKernelServer({
      port: 0,
      table: new ResourceTable({ ttlMs: TTL_MS, nextInLineWaitMs: 50 }),
      log: (line: string) => lines.push(line),
      onService: (service) => {
        service.observe?.({
          committed: () => {
            throw new TypeError('observer bug');
          },
        });
        return { health: () => ({}) };
      },
    });
    running.push(kernel);
    expect((await post(kernel.url, LEASE, { resource: R, actorDid: A })).status).toBe(200);
    expect(lines.some((l) => l.includes('a metrics observer failed: observer bug'))).toBe(true);
    // Armed: the lease lapses on the kernel's own timer, so B is granted without a release.
    let next = 0;
    for (let tries = 0; tries < 100 && next !== 200; tries++) {
      await sleep(TTL_MS / 2);
      next = (await post(kernel.url, LEASE, { resource: R, actorDid: B })).status;
    }
    expect(next).toBe(200);
  });
});

describe("the App's metrics key", () => {
  it('is refused at start when it is the plane key, or short on an App beyond loopback', async () => {
    const github = await startFakeGitHub();
    try {
      const plane = { url: 'http://127.0.0.1:9', key: 'plane-key-0123456789-abcdef' };
      const rules = [{ repository: 'acme/*', environment: 'production', resource: 'lock:prod' }];
      const wide = writeAppConfig(github, plane, { listen: { host: '0.0.0.0', port: 0 }, rules });
      const short = await runCli(['app', '--config', wide], { LEASE_GATE_METRICS_KEY: 'abc' });
      expect(short.code).toBe(2);
      expect(short.stderr).toContain('LEASE_GATE_METRICS_KEY is shorter than 16 characters');
      expect(short.stdout + short.stderr).not.toContain('abc"');
      const same = await runCli(['app', '--config', wide], { LEASE_GATE_METRICS_KEY: plane.key });
      expect(same.code).toBe(2);
      expect(same.stderr).toContain('LEASE_GATE_METRICS_KEY is the plane key');
      expect(same.stdout + same.stderr).not.toContain(plane.key);
    } finally {
      await github.close();
    }
  });
});

describe("the App's /metrics answers", () => {
  it('are marked no-store, as the kernel marks its own, refused or not', async () => {
    const key = 'app-metrics-hostile-key';
    const metrics = new AppMetrics(() => 0);
    const server = createServer((req, res) => {
      if (!metrics.serve(req, res, key)) res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
      for (const headers of [{}, { authorization: `Bearer ${key}` }]) {
        const res = await request(url, { headers });
        await res.body.text();
        expect(res.headers['cache-control']).toBe('no-store');
      }
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});
