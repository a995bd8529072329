import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startKernelProcess, type KernelProcess } from '../support/kernel-process.js';
import { until as waitUntil } from '../support/wait.js';
import {
  ARTIFACTS,
  launch,
  pageCost,
  recordRequests,
  spawnCli,
  type CliProcess,
  type OpenBrowser,
} from './support.js';
import { RESOURCE } from '../support/names.js';

const KEY = 'kernel-key-for-the-browser-test';
const ADMIN = 'admin-key-for-the-browser-test';
const run = (n: string) =>
  `did:web:github.com:acme:shop:actions:runs:${n}:attempts:1:jobs:deploy:n${n}`;
const HOLDER = run('1001');
const WAITER = run('1002');

/** `lease-gate run` from the committed CLI, holding the lease while `sleep` runs. */
const leaseGateRun = (url: string, did: string) =>
  spawnCli(
    ['run', '--api-url', url, '--resource', RESOURCE, '--actor-did', did, '--', 'sleep', '120'],
    {
      INTRAMEDIAL_KEY: KEY,
    },
  );

const until = (what: string, check: () => boolean, timeoutMs = 15_000) =>
  waitUntil(what, check, { timeoutMs, everyMs: 50 });

describe('the console in Chromium, against a kernel with keys', () => {
  let kernel: KernelProcess;
  let chrome: OpenBrowser;
  const runs: CliProcess[] = [];

  beforeAll(async () => {
    kernel = await startKernelProcess(['--ttl-ms', '3000', '--quiet'], {
      LEASE_GATE_KERNEL_KEY: KEY,
      LEASE_GATE_ADMIN_KEY: ADMIN,
    });
    chrome = await launch();
  });
  afterAll(async () => {
    for (const r of runs) r.child.kill('SIGKILL');
    await chrome?.close();
    await kernel?.stop();
  });

  async function openConsole(): Promise<{ page: Page; requests: string[] }> {
    const page = await chrome.browser.newPage({ viewport: { width: 1200, height: 900 } });
    const requests = recordRequests(page);
    await page.goto(kernel.url);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    return { page, requests };
  }

  it('shows the holder, its queue and the timeline; revoking ends the lease and stops run', async () => {
    const holder = leaseGateRun(kernel.url, HOLDER);
    runs.push(holder);
    await until('the holder to run its command', () => holder.stderr().includes('holding'));
    const waiter = leaseGateRun(kernel.url, WAITER);
    runs.push(waiter);
    await until('the waiter to be told who holds it', () => waiter.stderr().includes('is held by'));

    const { page, requests } = await openConsole();
    const row = page.locator(`tr[data-resource="${RESOURCE}"]`);
    await expect.poll(() => row.locator('td.holder').textContent()).toContain(HOLDER);
    await expect.poll(() => row.locator('td.waiting').textContent()).toContain(WAITER);
    const link = row.locator('td.holder a');
    expect(await link.getAttribute('href')).toBe(
      'https://github.com/acme/shop/actions/runs/1001/attempts/1',
    );
    await expect.poll(() => row.locator('td.left').textContent()).toMatch(/^\d+\.\d s$/);
    await expect.poll(() => page.locator('#timeline rect.hold.open').count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator('#checkpoint-mark').textContent()).toContain('✓ Verified');
    expect(await page.locator('#checkpoint-origin').textContent()).toMatch(
      /^lease-gate\.kernel\/[0-9a-f]{16}$/,
    );
    await page.screenshot({ path: `${ARTIFACTS}/console.png`, fullPage: true });

    // The row outlives the holder's renewals (a 3 s lease here, renewed about every second):
    // a row replaced under a press would swallow the click on its Revoke….
    const revoke = await row.locator('button.revoke').elementHandle();
    const expiresBefore = await row.locator('td.left').getAttribute('data-expires');
    await expect
      .poll(() => row.locator('td.left').getAttribute('data-expires'), { timeout: 10_000 })
      .not.toBe(expiresBefore);
    expect(await revoke.evaluate((button) => button.isConnected)).toBe(true);
    await row.locator('button.revoke').click();
    await page.locator('#revoke-reason').fill('frozen for the incident');
    await page.locator('#admin-key').fill(ADMIN);
    // The first press says what will happen to the holder's command and the queue; the second acts.
    await page.locator('#revoke-form button[type=submit]').click();
    await expect.poll(() => page.locator('#lever-consequence').textContent()).not.toBe('');
    await expect.poll(() => page.locator('#lever-submit').textContent()).toBe('Confirm: revoke');
    await page.locator('#revoke-form button[type=submit]').click();
    await expect
      .poll(() => page.locator('#revoke-result').textContent())
      .toBe(`Revoked ${RESOURCE}.`);
    expect(await page.locator('#admin-key').inputValue()).toBe('');

    // run notices at its next renewal (a third of the 3 s lease) and stops its command.
    const code = await holder.exited;
    expect(code).not.toBe(0);
    expect(holder.stderr()).toMatch(
      /Lost lock:deploy\/production .*an operator revoked the lease: frozen for the incident\. Stopping the command\./,
    );
    await expect
      .poll(() => row.locator('td.holder').textContent(), { timeout: 10_000 })
      .toContain(WAITER);
    await expect
      .poll(() => page.locator('#timeline rect.hold.revoke').count(), { timeout: 10_000 })
      .toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/console-revoked.png`, fullPage: true });

    // Typed as a string: the test runs under Node's types, the expression in the page.
    const storage = await page.evaluate(
      '[localStorage.length, sessionStorage.length, document.cookie]',
    );
    expect(storage).toEqual([0, 0, '']);
    const origin = new URL(kernel.url).origin;
    expect(requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
    await page.close();
  });

  it('marks a checkpoint whose bundle was altered by one byte as not verified', async () => {
    const page = await chrome.browser.newPage();
    await page.route('**/api/v1/acp/ledger/bundle*', async (route) => {
      const response = await route.fetch();
      const text = await response.text();
      // One byte of the first entry's DID: its leaf no longer hashes into the signed root.
      const at = text.indexOf('did:web:github.com:acme') + 'did:web:github.com:a'.length;
      await route.fulfill({ response, body: `${text.slice(0, at)}C${text.slice(at + 1)}` });
    });
    await page.goto(kernel.url);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    await expect
      .poll(() => page.locator('#checkpoint-mark').textContent())
      .toContain('✗ Not verified');
    expect(await page.locator('#checkpoint-mark').textContent()).toContain(
      'is not in the signed tree',
    );
    await page.close();
  });

  it('loads light and fast from the kernel on loopback', async () => {
    const page = await chrome.browser.newPage();
    const costs: Record<string, { loadMs: number; bytes: number }> = {};
    for (const path of ['/', '/playground']) {
      await page.goto(`${kernel.url}${path}`); // the first visit warms the browser, not the kernel
      await page.goto(`${kernel.url}${path}`);
      costs[path] = await pageCost(page);
    }
    console.log(`page costs from the kernel on loopback: ${JSON.stringify(costs)}`);
    for (const cost of Object.values(costs)) {
      expect(cost.bytes).toBeLessThan(150 * 1024);
      expect(cost.loadMs).toBeLessThan(5_000); // the 300 ms target is measured, not asserted
    }
    await page.close();
  });
});
