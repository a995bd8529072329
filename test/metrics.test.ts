import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { KernelMetrics } from '../src/kernel/http/metrics.js';
import { BoundedLabels, OTHER_RESOURCE } from '../src/metrics/bounded.js';
import { wantsOpenMetrics } from '../src/metrics/render.js';
import { post } from './support/http.js';
import { A, B, LEASE, R, RELEASE, REVOKE } from './support/names.js';

/**
 * GET /metrics on a real kernel (127.0.0.1:0), driven through its public HTTP surface:
 * who may read it, what it counts, and the cap on per-resource series.
 */

const ADMIN = 'metrics-test-admin-key';
const METRICS = 'metrics-test-metrics-key';

const running: RunningKernel[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((k) => k.close()));
});

async function start(options: Parameters<typeof startKernelServer>[0] = {}) {
  const kernel = await startKernelServer({
    port: 0,
    adminKey: ADMIN,
    metricsKey: METRICS,
    log: () => undefined,
    ...options,
  });
  running.push(kernel);
  return kernel.url;
}

async function scrape(url: string, bearer?: string, accept?: string) {
  const res = await request(`${url}/metrics`, {
    headers: {
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
      ...(accept ? { accept } : {}),
    },
  });
  return { status: res.statusCode, type: res.headers['content-type'], text: await res.body.text() };
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const lease = (url: string, resource: string, actorDid: string) =>
  post(url, LEASE, { resource, actorDid });

describe('GET /metrics', () => {
  it('answers 401 without a Bearer token, 403 with a wrong one, 200 with either key', async () => {
    const url = await start();
    const none = await scrape(url);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text)).toMatchObject({ ok: false, reason: 'unauthorized' });
    const wrong = await scrape(url, 'not-the-key');
    expect(wrong.status).toBe(403);
    expect(JSON.parse(wrong.text)).toMatchObject({ ok: false, reason: 'forbidden' });
    for (const key of [METRICS, ADMIN]) {
      const ok = await scrape(url, key);
      expect(ok.status).toBe(200);
      expect(ok.type).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(ok.text).toContain('# TYPE lease_gate_grants_total counter');
    }
  });

  it('is off (403 metrics_disabled) on a kernel with neither an admin nor a metrics key', async () => {
    const url = await start({ adminKey: undefined, metricsKey: undefined });
    const answer = await scrape(url, 'anything');
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({ reason: 'metrics_disabled' });
  });

  it('does not let the metrics key do an operator’s work', async () => {
    const url = await start();
    await lease(url, R, A);
    const revoke = await post(url, REVOKE, { resource: R }, { bearer: METRICS });
    expect(revoke.status).toBe(403);
  });

  it('counts grants, refusals, releases, revokes, waiters and the ledger after real calls', async () => {
    const url = await start();
    expect((await lease(url, R, A)).body).toMatchObject({ ok: true });
    const held = await lease(url, R, B);
    expect(held.body).toMatchObject({ ok: false, reason: 'lease_held' });
    const during = (await scrape(url, METRICS)).text;
    expect(sample(during, `lease_gate_waiters{resource="${R}"}`)).toBe(1);
    expect(sample(during, `lease_gate_leases_held{resource="${R}"}`)).toBe(1);
    expect((await post(url, RELEASE, { resource: R, actorDid: A })).status).toBe(200);
    expect((await lease(url, R, B)).body).toMatchObject({ ok: true });
    expect((await post(url, REVOKE, { resource: R }, { bearer: ADMIN })).status).toBe(200);
    const text = (await scrape(url, METRICS)).text;
    expect(sample(text, `lease_gate_grants_total{resource="${R}"}`)).toBe(2);
    expect(sample(text, `lease_gate_releases_total{resource="${R}"}`)).toBe(1);
    expect(sample(text, `lease_gate_revokes_total{resource="${R}"}`)).toBe(1);
    expect(sample(text, `lease_gate_refusals_total{resource="${R}",reason="lease_held"}`)).toBe(1);
    expect(sample(text, `lease_gate_wait_seconds_count{resource="${R}"}`)).toBe(2);
    expect(sample(text, `lease_gate_hold_seconds_count{resource="${R}"}`)).toBe(2);
    expect(sample(text, `lease_gate_handover_seconds_count{resource="${R}"}`)).toBe(1);
    expect(sample(text, `lease_gate_waiters{resource="${R}"}`)).toBeUndefined();
    // grant, release, grant, revoke: four entries.
    expect(sample(text, 'lease_gate_ledger_entries')).toBe(4);
    expect(sample(text, 'lease_gate_ready')).toBe(1);
    expect(sample(text, 'lease_gate_store_batch_size_count{store="local"}')).toBeGreaterThan(0);
  });

  it('keeps its own series for the first resources only, the rest as resource="other"', async () => {
    const url = await start({ metrics: new KernelMetrics({ resourceCap: 2 }) });
    for (const name of ['lock:r1', 'lock:r2', 'lock:r3', 'lock:r4']) await lease(url, name, A);
    const text = (await scrape(url, METRICS)).text;
    expect(sample(text, 'lease_gate_grants_total{resource="lock:r1"}')).toBe(1);
    expect(sample(text, 'lease_gate_grants_total{resource="lock:r2"}')).toBe(1);
    expect(sample(text, 'lease_gate_grants_total{resource="other"}')).toBe(2);
    expect(text).not.toContain('lock:r3');
    expect(sample(text, 'lease_gate_leases_held{resource="other"}')).toBe(2);
  });

  it('answers OpenMetrics when asked, and Prometheus text again after', async () => {
    const url = await start();
    await lease(url, R, A);
    const open = await scrape(url, METRICS, 'application/openmetrics-text;version=1.0.0');
    expect(open.type).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(open.text).toMatch(/# EOF\n$/);
    expect(open.text).toContain(`lease_gate_grants_total{resource="${R}"} 1`);
    const plain = await scrape(url, METRICS);
    expect(sample(plain.text, `lease_gate_grants_total{resource="${R}"}`)).toBe(1);
  });

  it('keeps no metrics when turned off', async () => {
    const url = await start({ metrics: false });
    const answer = await scrape(url, METRICS);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({ reason: 'metrics_disabled' });
  });
});

describe('the label cap and the Accept header', () => {
  it('gives each resource its own value under the cap, "other" past it and for "other"', () => {
    const made: string[] = [];
    const labels = new BoundedLabels(2, (label) => (made.push(label), { label }));
    expect(labels.of('a').label).toBe('a');
    expect(labels.of(OTHER_RESOURCE).label).toBe(OTHER_RESOURCE);
    expect(labels.of('b').label).toBe('b');
    expect(labels.of('c').label).toBe(OTHER_RESOURCE);
    expect(labels.of('a')).toBe(labels.of('a'));
    expect(made).toEqual(['a', OTHER_RESOURCE, 'b']);
    expect(labels.labelOf('c')).toBe(OTHER_RESOURCE);
    expect(() => new BoundedLabels(-1, () => 0)).toThrow(/whole number/);
  });

  it('reads OpenMetrics from Prometheus’s Accept header, not when q=0', () => {
    expect(
      wantsOpenMetrics(
        'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      ),
    ).toBe(true);
    expect(wantsOpenMetrics('application/openmetrics-text;q=0, text/plain')).toBe(false);
    expect(wantsOpenMetrics(undefined)).toBe(false);
  });
});
