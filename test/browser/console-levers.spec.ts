import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startKernelProcess, type KernelProcess } from '../support/kernel-process.js';
import { gzipSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { until as waitUntil } from '../support/wait.js';
import {
  ARTIFACTS,
  coordinate,
  launch,
  leaseGateRun as runCommitted,
  type CliProcess,
  type OpenBrowser,
} from './support.js';

/** Where screenshots go: the artifacts, or docs/images with LEASE_GATE_SCREENSHOTS=docs/images. */
const SHOTS = process.env.LEASE_GATE_SCREENSHOTS || ARTIFACTS;

/**
 * The operator's levers and what the console tells, in Chromium against the
 * committed CLI's kernel: freeze and unfreeze from the page while a real
 * `lease-gate run` waits, who revoked and why in the history, each waiter's
 * place, wait and run, the holder's commit, the key and kernel-down states, and
 * the phone layout.
 */

const KEY = 'kernel-key-for-the-levers-test';
const ADMIN = 'admin-key-for-the-levers-test';
const run = (n: string) =>
  `did:web:github.com:acme:shop:actions:runs:${n}:attempts:1:jobs:deploy:n${n}`;
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

/** `lease-gate run` from the committed CLI: a short command once it holds `resource`. */
const leaseGateRun = (url: string, resource: string, did: string) =>
  runCommitted(url, resource, did, KEY);

const until = (what: string, check: () => boolean, timeoutMs = 20_000) =>
  waitUntil(what, check, { timeoutMs, everyMs: 50 });

/** A lease request as the gate sends it, with the deploy's fields; `wait` holds it (blocking acquire). */
const lease = (
  url: string,
  body: Record<string, unknown>,
  wait?: { seconds: number; signal: AbortSignal },
) => coordinate(url, KEY, body, wait ? { wait } : {});

async function useLever(page: Page, lever: string, resource: string, reason = ''): Promise<void> {
  // A lever opened at a row is closed first: the form goes back to the bottom section.
  if (await page.locator('#lever-close').isVisible()) await page.locator('#lever-close').click();
  await page.locator('#lever').selectOption(lever);
  await page.locator('#revoke-resource').fill(resource);
  // Only the fields the lever takes are shown: no reason for an unfreeze, no key once kept.
  if (reason) await page.locator('#revoke-reason').fill(reason);
  if (await page.locator('#admin-key').isVisible()) await page.locator('#admin-key').fill(ADMIN);
  await page.locator('#lever-submit').click();
  await expect.poll(() => page.locator('#lever-submit').textContent()).toBe(`Confirm: ${lever}`);
  await page.locator('#lever-submit').click();
}

describe('the operator levers in Chromium', () => {
  let kernel: KernelProcess;
  let chrome: OpenBrowser;
  const runs: CliProcess[] = [];
  const held = new AbortController();

  beforeAll(async () => {
    kernel = await startKernelProcess(['--ttl-ms', '60000', '--quiet'], {
      LEASE_GATE_KERNEL_KEY: KEY,
      LEASE_GATE_ADMIN_KEY: ADMIN,
    });
    chrome = await launch();
  });
  afterAll(async () => {
    held.abort();
    for (const r of runs) r.child.kill('SIGKILL');
    await chrome?.close();
    await kernel?.stop();
  });

  async function openConsole(width = 1200): Promise<Page> {
    const page = await chrome.browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(kernel.url);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Updated/);
    return page;
  }

  it('freezes from the page: a waiting lease-gate run says frozen, and deploys after unfreeze', async () => {
    const resource = 'lock:deploy/freeze-test';
    const page = await openConsole();
    await useLever(page, 'freeze', resource, 'incident 42: db failover');
    await expect.poll(() => page.locator('#revoke-result').textContent()).toMatch(/^Froze /);
    const row = page.locator(`#resources-body tr[data-resource="${resource}"]`);
    await expect.poll(() => row.textContent()).toContain('frozen until unfrozen: incident 42');

    const waiter = leaseGateRun(kernel.url, resource, run('2001'));
    runs.push(waiter);
    await until('run to say it is frozen', () => /frozen/.test(waiter.stderr()));
    expect(waiter.stderr()).toContain('incident 42: db failover');
    expect(waiter.stderr()).not.toContain('deployed');

    await row.locator('button.unfreeze').click();
    await useLever(page, 'unfreeze', resource);
    await expect
      .poll(() => page.locator('#revoke-result').textContent())
      .toBe(`Unfroze ${resource}.`);
    // The run asks again within its frozen-poll interval (5 s), is granted, runs and gives it back.
    expect(await waiter.exited).toBe(0);
    expect(waiter.stderr()).toContain('deployed');
    await expect
      .poll(() => page.locator('#history-body').textContent(), { timeout: 10_000 })
      .toContain('frozen by operator:admin-key: incident 42: db failover');
    await page.close();
  });

  it("shows each waiter's place, wait and run, and the holder's commit; the history says who revoked and why", async () => {
    const resource = 'lock:deploy/queue-test';
    const deploy = (n: number) => ({
      repository: 'acme/shop',
      workflow: 'deploy',
      ref: 'refs/heads/main',
      commit: COMMIT,
      runNumber: n,
      runAttempt: 1,
      runUrl: `https://github.com/acme/shop/actions/runs/${n}/attempts/1`,
    });
    const granted = await lease(kernel.url, {
      resource,
      actorDid: run('3001'),
      deploy: deploy(3001),
    });
    expect(granted.status).toBe(200);
    // Two waiters hold their requests open, as the gate does; one names a run URL that must not link.
    void lease(
      kernel.url,
      { resource, actorDid: run('3002'), deploy: deploy(3002) },
      { seconds: 55, signal: held.signal },
    ).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    void lease(
      kernel.url,
      { resource, actorDid: 'did:web:ci.example:job:7', deploy: { runNumber: 7 } },
      { seconds: 55, signal: held.signal },
    ).catch(() => undefined);

    const page = await openConsole();
    const row = page.locator(`#resources-body tr[data-resource="${resource}"]`);
    const waiters = row.locator('td.waiting li');
    await expect.poll(() => waiters.count()).toBe(2);
    await expect
      .poll(() => waiters.nth(0).textContent())
      .toMatch(/^1st in line .*3002.*waiting \d/);
    await expect
      .poll(() => waiters.nth(1).textContent())
      .toMatch(/^2nd in line .*job:7.*waiting \d/);
    expect(await waiters.nth(0).locator('a', { hasText: 'run #3002' }).getAttribute('href')).toBe(
      'https://github.com/acme/shop/actions/runs/3002/attempts/1',
    );
    // No https run page for a DID that is not GitHub's and no run URL: no link, text only.
    expect(await waiters.nth(1).locator('a').count()).toBe(0);
    const commit = row.locator('td.holder .commit a');
    expect(await commit.getAttribute('href')).toBe(`https://github.com/acme/shop/commit/${COMMIT}`);
    expect(await commit.textContent()).toBe(`acme/shop@${COMMIT.slice(0, 12)}`);
    await expect.poll(() => row.locator('td.holder').textContent()).toMatch(/held for \d/);
    await expect.poll(() => page.locator('#checkpoint-mark').textContent()).toContain('Verified');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/console.png` });

    await row.locator('button.revoke').click();
    await useLever(page, 'revoke', resource, 'stuck at the migration step');
    await expect
      .poll(() => page.locator('#revoke-result').textContent())
      .toBe(`Revoked ${resource}.`);
    const history = page.locator(`#history-body tr[data-resource="${resource}"]`);
    await expect
      .poll(() => history.first().textContent(), { timeout: 10_000 })
      .toContain('revoked by an operator: stuck at the migration step');
    expect(await history.first().locator('.commit a').getAttribute('href')).toBe(
      `https://github.com/acme/shop/commit/${COMMIT}`,
    );
    await page.close();
  });

  it('fits a 390 px phone without horizontal overflow', async () => {
    const resource =
      'lock:deploy/a-rather-long-resource-name-for-a-phone-screen/production-eu-west';
    await lease(kernel.url, { resource, actorDid: run('4001') });
    const page = await openConsole(390);
    await expect
      .poll(() => page.locator(`#resources-body tr[data-resource="${resource}"]`).count())
      .toBe(1);
    await expect.poll(() => page.locator('#checkpoint-mark').textContent()).toContain('Verified');
    const widths = await page.evaluate<[number, number]>(
      '[document.documentElement.scrollWidth, window.innerWidth]',
    );
    expect(widths[0]).toBeLessThanOrEqual(widths[1]);
    expect(widths[1]).toBe(390);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/console-phone.png` });
    await page.close();
  });
});

describe('the console page weight and load time in Chromium', () => {
  it('weighs its HTML, JS and CSS, raw and gzipped, and times five loads', async () => {
    const kernel = await startKernelProcess(['--quiet']);
    const chrome = await launch();
    try {
      const bytes: Record<string, { raw: number; gzip: number }> = {};
      for (const path of ['/', '/console/console.js', '/console/console.css', '/favicon.svg']) {
        const body = Buffer.from(await (await fetch(`${kernel.url}${path}`)).arrayBuffer());
        bytes[path] = { raw: body.length, gzip: gzipSync(body).length };
      }
      const page = await chrome.browser.newPage();
      const loads: number[] = [];
      for (let i = 0; i < 6; i += 1) {
        await page.goto(kernel.url);
        await expect.poll(() => page.locator('body').getAttribute('data-ready-ms')).not.toBeNull();
        const timing = await page.evaluate<[number, number]>(`(() => {
          const nav = performance.getEntriesByType('navigation')[0];
          return [nav.domContentLoadedEventEnd - nav.startTime, nav.loadEventEnd - nav.startTime];
        })()`);
        if (i > 0) loads.push(timing[1]); // the first load warms the browser's caches of code
      }
      loads.sort((a, b) => a - b);
      const total = Object.values(bytes).reduce(
        (n, b) => ({ raw: n.raw + b.raw, gzip: n.gzip + b.gzip }),
        { raw: 0, gzip: 0 },
      );
      const report = { bytes, total, loadMs: { median: loads[2], all: loads } };
      console.log(`console page weight and load: ${JSON.stringify(report)}`);
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(`${ARTIFACTS}/page-weight.json`, `${JSON.stringify(report, null, 2)}\n`);
      // Bounds far from the figures (loopback, two busy cores): the figures are what is reported.
      expect(total.gzip).toBeLessThan(total.raw);
      expect(total.raw).toBeLessThan(150 * 1024);
      expect(loads[2]).toBeLessThan(5_000);
      await page.close();
    } finally {
      await chrome.close();
      await kernel.stop();
    }
  });
});

describe('the key and kernel-down states in Chromium', () => {
  it('tells no key, wrong key and kernel unreachable apart, and marks the last data stale', async () => {
    const kernel = await startKernelProcess(['--ttl-ms', '60000', '--quiet'], {
      LEASE_GATE_KERNEL_KEY: KEY,
    });
    const chrome = await launch();
    try {
      await lease(kernel.url, { resource: 'lock:deploy/stale-test', actorDid: run('5001') });
      const page = await chrome.browser.newPage();
      // A step that cannot happen fails on its own, naming what it waited for.
      page.setDefaultTimeout(15_000);
      const status = page.locator('#status');
      await page.goto(kernel.url);
      await expect.poll(() => status.textContent()).toMatch(/^No key/);
      expect(await status.getAttribute('class')).toContain('error');
      expect(await page.locator('body').getAttribute('data-key-state')).toBe('none');

      await page.locator('#key-input').fill('not-the-key');
      await page.locator('#key-form button').click();
      await expect.poll(() => status.textContent()).toMatch(/^Wrong key/);
      expect(await page.locator('body').getAttribute('data-key-state')).toBe('wrong');

      await page.locator('#key-input').fill(KEY);
      await page.locator('#key-form button').click();
      await expect.poll(() => status.textContent()).toMatch(/^Updated/);
      expect(await status.getAttribute('class')).not.toContain('error');
      await expect
        .poll(() => page.locator('#resources-body').textContent())
        .toContain('stale-test');

      await kernel.stop();
      await expect
        .poll(() => status.textContent(), { timeout: 10_000 })
        .toMatch(/^Kernel unreachable/);
      expect(await status.textContent()).toContain('(stale)');
      expect(await status.getAttribute('class')).toContain('error');
      expect(await page.locator('body').getAttribute('class')).toContain('stale');
      // The last known holder is still shown, under the stale mark.
      expect(await page.locator('#resources-body').textContent()).toContain('stale-test');
      await page.close();
    } finally {
      await chrome.close();
      await kernel.stop();
    }
  });
});
