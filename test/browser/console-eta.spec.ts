import { describe, expect, it } from 'vitest';
import { coordinate, kernelAndBrowser } from './support.js';

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
  const rig = kernelAndBrowser(['--ttl-ms', '600000', '--quiet'], { LEASE_GATE_KERNEL_KEY: KEY });

  it('shows each waiter its place, its wait and the estimate', async () => {
    const first = 'did:web:acme.example:agent:first';
    const holder = 'did:web:acme.example:agent:holder';
    const waiter = 'did:web:acme.example:agent:waiter';
    // A hold that ended: the kernel then knows a typical hold.
    expect((await lease(rig.kernel.url, { resource: R, actorDid: first })).status).toBe(200);
    expect((await lease(rig.kernel.url, { resource: R, actorDid: first }, 'release')).status).toBe(
      200,
    );
    expect((await lease(rig.kernel.url, { resource: R, actorDid: holder })).status).toBe(200);
    void lease(rig.kernel.url, { resource: R, actorDid: waiter }, 'lease', rig.held.signal).catch(
      () => undefined,
    );

    const page = await rig.chrome.browser.newPage();
    await page.goto(rig.kernel.url);
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
