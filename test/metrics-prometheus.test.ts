import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { post } from './support/http.js';
import { A, B, C, LEASE, R, RELEASE, REVOKE } from './support/names.js';
import { freePort } from './support/ports.js';

/**
 * A real Prometheus (Debian's package; .ci/run installs it) scrapes a real kernel with the
 * metrics key as its Bearer credentials, and PromQL through its HTTP API returns the
 * grants, the wait and the revoke the test caused through the kernel's public HTTP surface.
 * `promtool check metrics` passes on what the kernel serves, and on the alert rules.
 */

const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';
const installed = existsSync(PROMETHEUS) && existsSync(PROMTOOL);
if (!installed && process.env.CI)
  throw new Error(`${PROMETHEUS} and ${PROMTOOL} are needed in CI: apt-get install prometheus`);
if (!installed)
  console.warn(
    'metrics-prometheus: skipped, Prometheus is not installed (apt-get install prometheus)',
  );

const METRICS_KEY = 'prometheus-test-metrics-key';
const ADMIN_KEY = 'prometheus-test-admin-key';
/** Long enough for Prometheus to start, scrape at 1 s and answer on a busy 2-core machine. */
const QUERY_DEADLINE_MS = 45_000;

let kernel: RunningKernel;
let prometheus: ChildProcess | undefined;
let prometheusUrl = '';
let dir = '';
let logs = '';

beforeAll(async () => {
  if (!installed) return;
  kernel = await startKernelServer({
    port: 0,
    adminKey: ADMIN_KEY,
    metricsKey: METRICS_KEY,
    log: () => undefined,
  });
  dir = mkdtempSync(join(tmpdir(), 'lease-gate-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: lease-gate-kernel',
      '    metrics_path: /metrics',
      '    authorization:',
      `      credentials: ${METRICS_KEY}`,
      '    static_configs:',
      `      - targets: ['${new URL(kernel.url).host}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  prometheus.stderr?.on('data', (chunk: Buffer) => (logs = (logs + chunk.toString()).slice(-4000)));
});

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus?.once('exit', resolve));
    prometheus.kill('SIGTERM');
    await exited;
  }
  await kernel?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One instant PromQL query's single value, or undefined while Prometheus has none. */
async function query(promql: string): Promise<number | undefined> {
  const url = `${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`;
  const res = await request(url).catch(() => undefined);
  if (!res) return undefined;
  if (res.statusCode !== 200) {
    await res.body.dump();
    return undefined;
  }
  const body = (await res.body.json()) as {
    data?: { result?: Array<{ value: [number, string] }> };
  };
  const value = body.data?.result?.[0]?.value[1];
  return value === undefined ? undefined : Number(value);
}

/** Polls `promql` until it returns `want` (a bounded loop), then returns what it last saw. */
async function until(promql: string, want: number): Promise<number | undefined> {
  const deadline = performance.now() + QUERY_DEADLINE_MS;
  let seen: number | undefined;
  for (let tries = 0; performance.now() < deadline; tries++) {
    seen = await query(promql);
    if (seen === want) return seen;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return seen;
}

describe.skipIf(!installed)('a real Prometheus scrapes the kernel', () => {
  it('counts the grants, the wait and the revoke it was shown', async () => {
    const url = kernel.url;
    expect((await post(url, LEASE, { resource: R, actorDid: A })).body).toMatchObject({ ok: true });
    // B waits behind A, then is granted once A gives the lease back.
    expect((await post(url, LEASE, { resource: R, actorDid: B })).body).toMatchObject({
      reason: 'lease_held',
    });
    expect((await post(url, RELEASE, { resource: R, actorDid: A })).status).toBe(200);
    expect((await post(url, LEASE, { resource: R, actorDid: B })).body).toMatchObject({ ok: true });
    const revoked = await post(url, REVOKE, { resource: R }, { bearer: ADMIN_KEY });
    expect(revoked.body).toMatchObject({ ok: true, revoked: true });
    expect((await post(url, LEASE, { resource: 'lock:other', actorDid: C })).status).toBe(200);

    const up = await until('up{job="lease-gate-kernel"}', 1);
    expect(up, `Prometheus never scraped the kernel; its log:\n${logs}`).toBe(1);
    expect(await until('sum(lease_gate_grants_total)', 3)).toBe(3);
    expect(await until(`lease_gate_grants_total{resource="${R}"}`, 2)).toBe(2);
    expect(await until(`lease_gate_revokes_total{resource="${R}"}`, 1)).toBe(1);
    expect(await until(`lease_gate_releases_total{resource="${R}"}`, 1)).toBe(1);
    expect(await until(`lease_gate_refusals_total{resource="${R}",reason="lease_held"}`, 1)).toBe(
      1,
    );
    // Three grants observed for their wait; one of them (B's) waited.
    expect(await until('sum(lease_gate_wait_seconds_count)', 3)).toBe(3);
    expect(await until('sum(lease_gate_handover_seconds_count)', 1)).toBe(1);
    expect(await until('lease_gate_leases_held{resource="lock:other"}', 1)).toBe(1);
    expect(await until('lease_gate_ready', 1)).toBe(1);
  });

  it('serves what promtool check metrics passes', async () => {
    const res = await request(`${kernel.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_KEY}` },
    });
    const text = await res.body.text();
    expect(res.statusCode).toBe(200);
    const checked = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  });
});
