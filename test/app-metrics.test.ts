import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { GitHubApp } from '../src/app/github.js';
import { AppMetrics, outcomeOf } from '../src/app/metrics.js';

/** The App's GET /metrics on a real server (127.0.0.1:0): who may read it and what it counts. */

const KEY = 'app-metrics-test-key';
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

async function serve(metrics: AppMetrics, key: string | undefined): Promise<string> {
  const server = createServer((req, res) => {
    if (!metrics.serve(req, res, key)) res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function scrape(url: string, bearer?: string) {
  const res = await request(`${url}/metrics`, {
    headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
  });
  return { status: res.statusCode, text: await res.body.text() };
}

describe("the App's metrics", () => {
  it('answers 401 without a token, 403 with a wrong one or none configured, 200 with the key', async () => {
    const url = await serve(new AppMetrics(() => 0), KEY);
    expect((await scrape(url)).status).toBe(401);
    expect((await scrape(url, 'wrong')).status).toBe(403);
    expect((await scrape(url, KEY)).status).toBe(200);
    const off = await serve(new AppMetrics(() => 0), undefined);
    expect((await scrape(off, KEY)).status).toBe(403);
  });

  it('counts GitHub calls by outcome, reviews by state, and shows the queued runs', async () => {
    let queued = 2;
    const metrics = new AppMetrics(() => queued);
    for (const status of [200, 201, 404, 429, 502, undefined]) metrics.called(status);
    let fail = false;
    const github = metrics.counted({
      review: async () => {
        if (fail) throw new Error('GitHub answered 502');
      },
    } as unknown as GitHubApp);
    const repo = { owner: 'acme', repo: 'shop' };
    const body = { environment_name: 'production', comment: 'c' };
    await github.review(1, repo, '7', { ...body, state: 'approved' });
    fail = true;
    await expect(github.review(1, repo, '8', { ...body, state: 'rejected' })).rejects.toThrow();
    queued = 3;
    const text = (await scrape(await serve(metrics, KEY), KEY)).text;
    expect(text).toContain('lease_gate_app_github_calls_total{outcome="ok"} 2');
    expect(text).toContain('lease_gate_app_github_calls_total{outcome="client_error"} 1');
    expect(text).toContain('lease_gate_app_github_calls_total{outcome="rate_limited"} 1');
    expect(text).toContain('lease_gate_app_github_calls_total{outcome="server_error"} 1');
    expect(text).toContain('lease_gate_app_github_calls_total{outcome="network"} 1');
    expect(text).toContain('lease_gate_app_reviews_total{state="approved",outcome="ok"} 1');
    expect(text).toContain('lease_gate_app_reviews_total{state="rejected",outcome="failed"} 1');
    expect(text).toContain('lease_gate_app_queued_runs 3');
  });

  it('names each status by its class', () => {
    expect([200, 304, 403, 429, 500, undefined].map(outcomeOf)).toEqual([
      'ok',
      'ok',
      'client_error',
      'rate_limited',
      'server_error',
      'network',
    ]);
  });
});
