import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKernelProcess, type KernelProcess } from '../support/kernel-process.js';
import { ARTIFACTS, launch, recordRequests, type OpenBrowser } from './support.js';

describe('the playground in Chromium', () => {
  let kernel: KernelProcess;
  let chrome: OpenBrowser;
  beforeAll(async () => {
    kernel = await startKernelProcess(['--quiet'], {
      LEASE_GATE_KERNEL_KEY: 'unused-by-the-playground',
    });
    chrome = await launch();
  });
  afterAll(async () => {
    await chrome?.close();
    await kernel?.stop();
  });

  it('runs two jobs through the kernel core in the page to a handover', async () => {
    const page = await chrome.browser.newPage({ viewport: { width: 1200, height: 900 } });
    const requests = recordRequests(page);
    await page.goto(`${kernel.url}/playground`);
    const job = (n: number) => page.locator(`li[data-job="job ${n}"]`);
    await page.locator('#start-job').click();
    await expect.poll(() => job(1).locator('.state').textContent()).toBe('holding');
    await page.locator('#start-job').click();
    await expect
      .poll(() => job(2).textContent())
      .toMatch(/waiting.*waits .* behind did:web:playground\.example:job:1/);
    await page.screenshot({ path: `${ARTIFACTS}/playground.png`, fullPage: true });

    // The buttons outlive the page's ticks: one replaced on a tick would swallow a slow click.
    const finish = await job(1).locator('button', { hasText: 'Finish' }).elementHandle();
    const holderBefore = await page.locator('#holder').textContent();
    await expect
      .poll(() => page.locator('#holder').textContent(), { timeout: 5_000 })
      .not.toBe(holderBefore);
    expect(await finish.evaluate((button) => button.isConnected)).toBe(true);
    await job(1).locator('button', { hasText: 'Finish' }).click();
    await expect.poll(() => job(1).locator('.state').textContent()).toBe('done');
    await expect
      .poll(() => job(2).locator('.state').textContent(), { timeout: 5_000 })
      .toBe('holding');
    expect(await page.locator('#holder').textContent()).toContain(
      'did:web:playground.example:job:2 · fence 2',
    );
    await expect.poll(() => page.locator('#timeline rect.hold').count()).toBe(2);
    await page.screenshot({ path: `${ARTIFACTS}/playground-handover.png`, fullPage: true });

    // The page talked to no one but its own origin, and to no route of the kernel's API.
    expect(requests.filter((u) => !u.startsWith(kernel.url) || u.includes('/api/'))).toEqual([]);
    await page.close();
  });
});
