import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKernelProcess, type KernelProcess } from '../support/kernel-process.js';
import { coordinate, launch, type OpenBrowser } from './support.js';

/**
 * In Chromium against the committed CLI's kernel: once a hold has ended, each waiter in the
 * console's queue shows the kernel's estimate in the words `lease-gate status` prints
 * ("about … at recent hold times"), beside its place and how long it has waited.
 */

const KEY = 'kernel-key-for-the-eta-test';
const R = 'lock:deploy/eta-test';

const lease = (url: string, body: Record<string, unknown>, path = 'lease', signal?: AbortSignal) =>
  // A held request (as the gate's) keeps the waiter in line however slow the page is.
  coordinate(url, KEY, body, { path, ...(signal ? { wait: { seconds: 55, signal } } : {}) });

describe('the console in Chromium: the estimate in the queue', () => {
  let kernel: KernelProcess;
  let chrome: OpenBrowser;
  const held = new AbortController();

  beforeAll(async () => {
    kernel = await startKernelProcess(['--ttl-ms', '600000', '--quiet'], {
      LEASE_GATE_KERNEL_KEY: KEY,
    });
    chrome = await launch();
  });
  afterAll(async () => {
    held.abort();
    await chrome?.close();
    await kernel?.stop();
  });

  it('shows each waiter its place, its wait and the estimate', async () => {
    const first = 'did:web:acme.example:agent:first';
    const holder = 'did:web:acme.example:agent:holder';
    const waiter = 'did:web:acme.example:agent:waiter';
    // A hold that ended: the kernel then knows a typical hold.
    expect((await lease(kernel.url, { resource: R, actorDid: first })).status).toBe(200);
    expect((await lease(kernel.url, { resource: R, actorDid: first }, 'release')).status).toBe(200);
    expect((await lease(kernel.url, { resource: R, actorDid: holder })).status).toBe(200);
    void lease(kernel.url, { resource: R, actorDid: waiter }, 'lease', held.signal).catch(
      () => undefined,
    );

    const page = await chrome.browser.newPage();
    await page.goto(kernel.url);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    const item = page.locator(`tr[data-resource="${R}"] li[data-position="1"]`);
    await expect
      .poll(() => item.textContent(), { timeout: 30_000 })
      .toMatch(
        /^1st in line did:web:acme\.example:agent:waiter · waiting [\d.]+ s · (about .+|any moment now) at recent hold times/,
      );
  });
});
