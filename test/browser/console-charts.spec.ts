import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startKernelProcess, type KernelProcess } from '../support/kernel-process.js';
import { ARTIFACTS, coordinate, launch, type OpenBrowser } from './support.js';

/** Where screenshots go: the artifacts, or docs/images with LEASE_GATE_SCREENSHOTS=docs/images. */
const SHOTS = process.env.LEASE_GATE_SCREENSHOTS || ARTIFACTS;

/**
 * The console's charts (#57 item 5) in Chromium, against the committed kernel given a week
 * of history in seconds (clock-shift.mjs moves its clock forward, day by day, to now): per
 * resource, hold times, waits, deploys per day, a freeze shaded and a break-glass marked,
 * over the last day and the last week; at a laptop's width in the light scheme and at
 * 390 px in the dark one, with no sideways scrolling, drawn in the scheme's colours.
 */

const KEY = 'kernel-key-for-the-charts-test';
const ADMIN = 'admin-key-for-the-charts-test';
const PRODUCTION = 'lock:deploy/production';
const MIGRATIONS = 'lock:db/migrations';
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const run = (n: number) =>
  `did:web:github.com:acme:shop:actions:runs:${n}:attempts:1:jobs:deploy:n${n}`;

describe('the console charts, light and dark, laptop and phone', () => {
  let kernel: KernelProcess;
  let chrome: OpenBrowser;
  const dir = mkdtempSync(join(tmpdir(), 'lease-gate-charts-'));
  const shiftFile = join(dir, 'shift');
  const start = Date.now();

  /** The kernel's clock moved to `t` (forward only), once it says so. */
  async function at(t: number): Promise<void> {
    writeFileSync(shiftFile, String(t - Date.now()));
    kernel.child.kill('SIGUSR2');
    for (;;) {
      const answer = await fetch(`${kernel.url}/api/v1/kernel/resources`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      const { nowMs } = (await answer.json()) as { nowMs: number };
      if (nowMs >= t - 1_000) return;
      await new Promise((done) => setTimeout(done, 20));
    }
  }

  async function lease(resource: string, actorDid: string): Promise<boolean> {
    const answer = await coordinate(kernel.url, KEY, { resource, actorDid });
    return ((await answer.json()) as { ok: boolean }).ok;
  }

  async function release(resource: string, actorDid: string): Promise<void> {
    const answer = await coordinate(kernel.url, KEY, { resource, actorDid }, { path: 'release' });
    expect(answer.status).toBe(200);
  }

  async function admin(path: string, body: Record<string, unknown>): Promise<void> {
    const answer = await coordinate(kernel.url, ADMIN, body, { path });
    expect(answer.status, `${path}: ${await answer.clone().text()}`).toBe(200);
  }

  /** Day `d` days ago: one to three deploys, the second with a job queued behind it. */
  async function deployDay(d: number): Promise<void> {
    const base = start - d * DAY - 6 * HOUR;
    for (let k = 0; k <= d % 3; k += 1) {
      const t0 = base + k * 2 * HOUR;
      const holder = run(1000 + d * 10 + k);
      await at(t0);
      expect(await lease(PRODUCTION, holder)).toBe(true);
      const waiter = run(2000 + d * 10);
      if (k === 1) {
        await at(t0 + 5 * MIN);
        expect(await lease(PRODUCTION, waiter)).toBe(false);
      }
      await at(t0 + (15 + 10 * k) * MIN);
      await release(PRODUCTION, holder);
      if (k === 1) {
        expect(await lease(PRODUCTION, waiter)).toBe(true);
        await at(t0 + (23 + 10 * k) * MIN);
        await release(PRODUCTION, waiter);
      }
    }
    if (d % 4 === 1 || d === 0) {
      await at(base + 5 * HOUR);
      expect(await lease(MIGRATIONS, run(3000 + d))).toBe(true);
      await at(base + 5 * HOUR + 12 * MIN);
      await release(MIGRATIONS, run(3000 + d));
    }
  }

  /** Two days ago: a freeze, a break-glass through it used by a hotfix, the unfreeze. */
  async function incident(): Promise<void> {
    const t = start - 2 * DAY - 10 * HOUR;
    await at(t);
    await admin('freeze', { resource: PRODUCTION, reason: 'incident 7', forMs: 4 * HOUR });
    await at(t + 30 * MIN);
    const hotfix = run(7777);
    await admin('break-glass', {
      resource: PRODUCTION,
      actorDid: hotfix,
      reason: 'CVE hotfix',
      by: 'alice',
    });
    expect(await lease(PRODUCTION, hotfix)).toBe(true);
    await at(t + 50 * MIN);
    await release(PRODUCTION, hotfix);
    await at(t + 90 * MIN);
    await admin('unfreeze', { resource: PRODUCTION });
  }

  beforeAll(async () => {
    writeFileSync(shiftFile, String(start - 7 * DAY + HOUR - Date.now()));
    kernel = await startKernelProcess(
      ['--ttl-ms', '3600000', '--quiet'],
      {
        LEASE_GATE_KERNEL_KEY: KEY,
        LEASE_GATE_ADMIN_KEY: ADMIN,
        LEASE_GATE_TEST_SHIFT_FILE: shiftFile,
      },
      ['--import', resolve('test/browser/clock-shift.mjs'), 'dist/cli/index.js'],
    );
    for (let d = 6; d >= 3; d -= 1) await deployDay(d);
    await incident();
    for (let d = 2; d >= 0; d -= 1) await deployDay(d);
    // The last day's freeze: a release train, ending by itself.
    await at(start - 3 * HOUR);
    await admin('freeze', { resource: PRODUCTION, reason: 'release train', forMs: HOUR });
    await at(Date.now());
    chrome = await launch();
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await kernel?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function openCharts(width: number, colorScheme: 'light' | 'dark'): Promise<Page> {
    const page = await chrome.browser.newPage({ viewport: { width, height: 900 }, colorScheme });
    await page.goto(kernel.url);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    await expect.poll(() => page.locator('#charts figure.chart').count()).toBe(2);
    return page;
  }

  const production = (page: Page) => page.locator(`figure.chart[data-resource="${PRODUCTION}"]`);

  it('draws holds, waits, deploys per day and the last day’s freeze; the week shows the break-glass', async () => {
    const page = await openCharts(1280, 'light');
    const chart = production(page);
    // The busiest resource first, named in its caption.
    await expect
      .poll(() => page.locator('#charts figure.chart').first().getAttribute('data-resource'))
      .toBe(PRODUCTION);
    expect(await chart.locator('figcaption').textContent()).toContain(PRODUCTION);
    // The last day: today's deploy (d = 0: one) and yesterday's that fall within 24 h.
    expect(await chart.locator('svg.times rect.hold-bar').count()).toBeGreaterThan(0);
    expect(await chart.locator('svg.times circle.wait-dot').count()).toBeGreaterThan(0);
    expect(await chart.locator('svg.times rect.freeze-band').count()).toBe(1);
    expect(await chart.locator('svg.times path.glass-tip').count()).toBe(0);
    // Deploys per day: seven days, today last, each labelled with its count.
    const counts = await chart.locator('svg.deploys text.mid').allTextContents();
    expect(counts).toHaveLength(14);
    // 18 grants in all (1 + d % 3 a day, the queued job on two days in three, the hotfix);
    // the oldest day's one falls before the seven days when the test runs before 06:00.
    const total = counts.filter((_, i) => i % 2 === 0).reduce((sum, n) => sum + Number(n), 0);
    expect([17, 18]).toContain(total);

    await page.locator('button[data-chart-span="week"]').click();
    await expect.poll(() => chart.locator('svg.times path.glass-tip').count()).toBe(1);
    expect(await chart.locator('svg.times rect.freeze-band').count()).toBe(2);
    expect(await chart.locator('svg.times path.glass-tip title').textContent()).toContain(
      'CVE hotfix',
    );
    await page.locator('#charts-section').screenshot({ path: join(SHOTS, 'console-charts.png') });
    await page.close();
  });

  it('fits 390 px in the dark scheme, in its colours, with no sideways scrolling', async () => {
    const page = await openCharts(390, 'dark');
    await page.locator('button[data-chart-span="week"]').click();
    const chart = production(page);
    await expect.poll(() => chart.locator('svg.times path.glass-tip').count()).toBe(1);
    const widths = await page.evaluate<{ page: number; charts: number[] }>(`({
      page: document.documentElement.scrollWidth,
      charts: [...document.querySelectorAll('#charts svg')].map((s) => s.getBoundingClientRect().right),
    })`);
    expect(widths.page).toBeLessThanOrEqual(390);
    for (const right of widths.charts) expect(right).toBeLessThanOrEqual(390);
    // The dark scheme's own --hold and --muted (console.css), not the light ones.
    const colours = await page.evaluate(`({
      bar: getComputedStyle(document.querySelector('#charts rect.hold-bar')).fill,
      tick: getComputedStyle(document.querySelector('#charts text.tick')).fill,
    })`);
    expect(colours).toEqual({ bar: 'rgb(109, 155, 240)', tick: 'rgb(154, 165, 177)' });
    expect(await chart.locator('svg.deploys text.mid').count()).toBe(14);
    await page
      .locator('#charts-section')
      .screenshot({ path: join(SHOTS, 'console-charts-dark.png') });
    await page.close();
  });
});
