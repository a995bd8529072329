import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startKernelProcess, type KernelProcess } from '../support/kernel-process.js';
import { launch, leaseGateRun as runCommitted, type OpenBrowser } from './support.js';

/**
 * Break-glass from the console, in Chromium against the committed CLI's kernel started
 * with a second approver: a real `lease-gate run` waits behind a freeze; the operator
 * opens a break-glass on that waiter from its queue row, a second operator approves it
 * with the approver key, the run deploys, and the page shows the pass and the history
 * row in red.
 */

const KEY = 'kernel-key-for-the-break-glass-test';
const ADMIN = 'admin-key-for-the-break-glass-test';
const APPROVER = 'approver-key-for-the-break-glass-test';
const RESOURCE = 'lock:deploy/break-glass-test';
const HOTFIX = 'did:web:github.com:acme:shop:actions:runs:4001:attempts:1:jobs:deploy:hotfix';

const leaseGateRun = (url: string) => runCommitted(url, RESOURCE, HOTFIX, KEY);

async function confirm(page: Page, lever: string): Promise<void> {
  await page.locator('#lever-submit').click();
  await expect.poll(() => page.locator('#lever-submit').textContent()).toBe(`Confirm: ${lever}`);
  await page.locator('#lever-submit').click();
}

describe('break-glass in the console', () => {
  let kernel: KernelProcess;
  let chrome: OpenBrowser;
  let run: ReturnType<typeof leaseGateRun> | undefined;

  beforeAll(async () => {
    kernel = await startKernelProcess(['--ttl-ms', '60000', '--quiet'], {
      LEASE_GATE_KERNEL_KEY: KEY,
      LEASE_GATE_ADMIN_KEY: ADMIN,
      LEASE_GATE_APPROVER_KEY: APPROVER,
    });
    chrome = await launch();
  });
  afterAll(async () => {
    run?.child.kill('SIGKILL');
    await chrome?.close();
    await kernel?.stop();
  });

  it('opens a break-glass on a waiter, waits for the second approver, and shows it in red', async () => {
    const frozen = await fetch(`${kernel.url}/api/v1/acp/coordination/freeze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ resource: RESOURCE, reason: 'release freeze', by: 'carol' }),
    });
    expect(frozen.status).toBe(200);
    run = leaseGateRun(kernel.url);

    const page = await chrome.browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(kernel.url);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    const row = page.locator(`#resources-body tr[data-resource="${RESOURCE}"]`);
    await expect.poll(() => row.locator('td.waiting li').count(), { timeout: 20_000 }).toBe(1);

    // The waiter's own lever fills in the resource and its DID.
    await row.locator('button.break-glass-lever').click();
    expect(await page.locator('#lever').inputValue()).toBe('break-glass');
    expect(await page.locator('#break-glass-agent').inputValue()).toBe(HOTFIX);
    expect(await page.locator('#approver-label').isHidden()).toBe(true);
    // No reason: said at once, nothing done.
    await page.locator('#admin-key').fill(ADMIN);
    await page.locator('#lever-submit').click();
    await expect
      .poll(() => page.locator('#revoke-result').textContent())
      .toBe('Reason: a break-glass is recorded with why.');
    await page.locator('#revoke-reason').fill('CVE-2026-1234 hotfix');
    await page.locator('#operator-name').fill('alice');
    await confirm(page, 'break-glass');
    await expect
      .poll(() => page.locator('#revoke-result').textContent())
      .toBe(`Break-glass on ${RESOURCE} waits for a second operator's approval.`);
    const badge = row.locator('p.break-glass');
    await expect
      .poll(() => badge.textContent())
      .toMatch(
        /^BREAK-GLASS waiting for a second operator to approve: .*hotfix may be granted it once/,
      );
    // Red: the page's danger colour, not the freeze's blue.
    // A string: the test's own types have no DOM.
    const colors = await page.evaluate<[string, string]>(`[
      getComputedStyle(document.querySelector('p.break-glass')).color,
      getComputedStyle(document.querySelector('p.frozen')).color,
    ]`);
    expect(colors[0]).toMatch(/^rgb\((19[0-9]|2\d\d), \d{1,2}, \d{1,2}\)$/);
    expect(colors[0]).not.toBe(colors[1]);
    expect(run.stderr()).not.toContain('deployed');

    // The second operator: the approver key and another name.
    await row.locator('button.approve-break-glass').click();
    expect(await page.locator('#lever').inputValue()).toBe('approve-break-glass');
    await page.locator('#approver-key').fill(APPROVER);
    await page.locator('#operator-name').fill('bob');
    await confirm(page, 'approve-break-glass');
    await expect
      .poll(() => page.locator('#revoke-result').textContent())
      .toBe(`Approved the break-glass on ${RESOURCE}: ${HOTFIX} may be granted it once.`);
    expect(await page.locator('#approver-key').inputValue()).toBe('');

    // The frozen run is let through and deploys.
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toContain('deployed');
    const history = page.locator('#history-body');
    await expect
      .poll(() => history.textContent(), { timeout: 10_000 })
      .toContain('BREAK-GLASS by operator:alice, approved by operator:bob: CVE-2026-1234 hotfix');
    const cell = history.locator('td.ended.break_glass');
    expect(await cell.count()).toBe(1);
    await page.close();
  });

  it('shows the promotion order, and a break-glass typed in lets a hotfix skip staging', async () => {
    const promoted = await startKernelProcess(
      ['--ttl-ms', '60000', '--quiet', '--promote', 'staging->production'],
      { LEASE_GATE_KERNEL_KEY: KEY, LEASE_GATE_ADMIN_KEY: ADMIN },
    );
    const page = await chrome.browser.newPage({ viewport: { width: 1200, height: 900 } });
    try {
      const ask = () =>
        fetch(`${promoted.url}/api/v1/acp/coordination/lease`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            resource: 'lock:deploy/production',
            actorDid: HOTFIX,
            deploy: { repository: 'acme/shop', commit: 'a'.repeat(40) },
          }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { reason?: string } }));
      expect(await ask()).toMatchObject({ status: 409, body: { reason: 'not_promoted' } });
      await page.goto(promoted.url);
      await page.locator('#key-input').fill(KEY);
      await page.locator('#key-form button').click();
      await expect
        .poll(() => page.locator('#promotion-list').textContent())
        .toBe('lock:deploy/staging → lock:deploy/production');
      expect(await page.locator('#promotion-section').isVisible()).toBe(true);
      // The refused job is not in any queue: its DID is typed in.
      await page.locator('#lever').selectOption('break-glass');
      await page.locator('#revoke-resource').fill('lock:deploy/production');
      await page.locator('#break-glass-agent').fill(HOTFIX);
      await page.locator('#revoke-reason').fill('outage: hotfix past staging');
      await page.locator('#admin-key').fill(ADMIN);
      await confirm(page, 'break-glass');
      await expect
        .poll(() => page.locator('#revoke-result').textContent())
        .toMatch(
          /^Break-glass open on lock:deploy\/production until .*: .*hotfix may be granted it once\.$/,
        );
      expect(await ask()).toMatchObject({ status: 200 });
    } finally {
      await page.close();
      await promoted.stop();
    }
  });
});
