import { describe, expect, it } from 'vitest';
import { kernelAndBrowser } from './support.js';

/**
 * Withdrawing a break-glass from the console, in Chromium against the committed CLI's
 * kernel: the pass's row has a **Withdraw break-glass…** lever; pulled with the admin key,
 * the pass is gone from the row and the history says who withdrew it.
 */

const KEY = 'kernel-key-for-the-withdraw-test';
const ADMIN = 'admin-key-for-the-withdraw-test';
const RESOURCE = 'lock:deploy/withdraw-test';
const HOTFIX = 'did:web:github.com:acme:shop:actions:runs:4002:attempts:1:jobs:deploy:hotfix';

describe('withdrawing a break-glass in the console', () => {
  const rig = kernelAndBrowser(['--quiet'], {
    LEASE_GATE_KERNEL_KEY: KEY,
    LEASE_GATE_ADMIN_KEY: ADMIN,
  });

  it('withdraws the pass from its row, recorded with the operator’s name', async () => {
    for (const [path, body] of [
      ['freeze', { resource: RESOURCE, reason: 'release freeze' }],
      ['break-glass', { resource: RESOURCE, actorDid: HOTFIX, reason: 'hotfix', by: 'alice' }],
    ] as const) {
      const res = await fetch(`${rig.kernel.url}/api/v1/acp/coordination/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
    }
    const page = await rig.chrome.browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(rig.kernel.url);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    const row = page.locator(`#resources-body tr[data-resource="${RESOURCE}"]`);
    await expect.poll(() => row.locator('p.break-glass').count(), { timeout: 20_000 }).toBe(1);

    await row.locator('button.withdraw-break-glass').click();
    expect(await page.locator('#lever').inputValue()).toBe('withdraw-break-glass');
    expect(await page.locator('#break-glass-agent').inputValue()).toBe(HOTFIX);
    await page.locator('#admin-key').fill(ADMIN);
    await page.locator('#operator-name').fill('dave');
    await page.locator('#lever-submit').click();
    await expect
      .poll(() => page.locator('#lever-submit').textContent())
      .toBe('Confirm: withdraw-break-glass');
    await page.locator('#lever-submit').click();
    await expect
      .poll(() => page.locator('#revoke-result').textContent())
      .toBe(`Withdrew the break-glass on ${RESOURCE}: ${HOTFIX} can no longer use it.`);
    await expect.poll(() => row.locator('p.break-glass').count(), { timeout: 10_000 }).toBe(0);
    await expect
      .poll(() => page.locator('#history-body').textContent(), { timeout: 10_000 })
      .toContain('break-glass withdrawn by operator:dave: cancelled by an operator');
    await page.close();
  });
});
