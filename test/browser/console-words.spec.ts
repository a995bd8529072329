import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createPlaneClient, type PlaneClient } from '../../src/plane/client.js';
import { SOURCE_CLI, startKernelProcess, type KernelProcess } from '../support/kernel-process.js';
import { ARTIFACTS, launch, type OpenBrowser } from './support.js';

/** Where screenshots go: the artifacts, or docs/images with LEASE_GATE_SCREENSHOTS=docs/images. */
const SHOTS = process.env.LEASE_GATE_SCREENSHOTS || ARTIFACTS;

/**
 * The console's words and levers (issue #55 item 7), in Chromium at a laptop's and a phone's
 * width, light and dark: a freeze ending on another day shows its date; a lever opens under
 * its row with only its own fields, and its review names the holder, their run and who is
 * next; durations take the CLI's form (3d); names and DIDs wrap only between their parts;
 * the lease column says what it counts; a page without its key says it is locked; the
 * break-glass mark is drawn, not an emoji.
 */

const KEY = 'kernel-key-for-the-words-test';
const ADMIN = 'admin-key-for-the-words-test';
const did = (n: number) =>
  `did:web:github.com:acme:shop:actions:runs:${n}:attempts:1:jobs:deploy:n0123456789abcdef${n}`;
const PRODUCTION = 'lock:deploy/production';
const FROZEN = 'lock:db/migrations';
const SCHEMES = ['light', 'dark'] as const;
const WIDTHS = [
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const DAY_MS = 86_400_000;

/** Every text part of each name in the resources table sits on one line (no break inside a word). */
const BROKEN_WORDS = `(() => {
  const broken = [];
  for (const code of document.querySelectorAll('#resources-body code.name')) {
    for (const node of code.childNodes) {
      if (node.nodeType !== 3) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) broken.push(node.textContent);
    }
  }
  return broken;
})()`;

describe("the console's words and levers, in both schemes and at both widths", () => {
  let kernel: KernelProcess;
  let chrome: OpenBrowser;
  let client: PlaneClient;
  /** Ends the waiter's held ask (blocking acquire) at the end. */
  const held = new AbortController();

  beforeAll(async () => {
    kernel = await startKernelProcess(
      ['--ttl-ms', '600000', '--quiet'],
      { LEASE_GATE_KERNEL_KEY: KEY, LEASE_GATE_ADMIN_KEY: ADMIN },
      SOURCE_CLI,
    );
    client = createPlaneClient({ apiUrl: kernel.url, key: KEY });
    chrome = await launch();
    const deploy = (n: number) => ({ repository: 'acme/shop', runNumber: n, runAttempt: 1 });
    await client.lease({ resource: PRODUCTION, actorDid: did(41), deploy: deploy(41) });
    // The next in line, held in the queue by a blocking ask (Prefer: wait) until the end.
    void fetch(`${kernel.url}/api/v1/acp/coordination/lease`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        prefer: 'wait=600',
      },
      body: JSON.stringify({ resource: PRODUCTION, actorDid: did(42), deploy: deploy(42) }),
      signal: held.signal,
    }).catch(() => undefined);
    await client.freeze({ resource: FROZEN, reason: 'incident 7', forMs: 3 * DAY_MS }, ADMIN);
    await client.lease({ resource: FROZEN, actorDid: did(50) });
    await client.breakGlass(
      { resource: FROZEN, actorDid: did(50), reason: 'CVE hotfix', by: 'alice' },
      ADMIN,
    );
  }, 120_000);
  afterAll(async () => {
    held.abort();
    await chrome?.close();
    await client?.close();
    await kernel?.stop();
  });

  async function openConsole(
    scheme: (typeof SCHEMES)[number],
    size: (typeof WIDTHS)[number],
    key = true,
  ): Promise<Page> {
    const page = await chrome.browser.newPage({
      viewport: { width: size.width, height: size.height },
      timezoneId: 'UTC',
    });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(kernel.url);
    if (!key) return page;
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Updated/);
    return page;
  }

  const row = (page: Page, resource: string) =>
    page.locator(`#resources-body tr[data-resource="${resource}"]`);

  for (const scheme of SCHEMES) {
    for (const size of WIDTHS) {
      it(`says dates, draws the break-glass mark and keeps words whole, ${scheme}, ${size.name}`, async () => {
        const page = await openConsole(scheme, size);
        const frozen = row(page, FROZEN);
        // Three days away: the date is part of it, not only the time of day.
        expect(await frozen.locator('p.frozen').textContent()).toMatch(
          /^❄ frozen until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC: incident 7$/,
        );
        const glass = frozen.locator('p.break-glass');
        const text = (await glass.textContent()) ?? '';
        expect(text).toMatch(/^BREAK-GLASS open: did:web:.* may be granted it once/);
        expect(/\p{Extended_Pictographic}/u.test(text)).toBe(false);
        // A string: the test's own types have no DOM.
        const mark = await page.evaluate<{
          background: string;
          width: number;
          height: number;
        }>(`(() => {
          const el = document.querySelector('#resources-body p.break-glass .glass-mark');
          const box = el.getBoundingClientRect();
          return { background: getComputedStyle(el).backgroundColor, width: box.width, height: box.height };
        })()`);
        expect(mark.width).toBeGreaterThan(5);
        expect(mark.height).toBeGreaterThan(5);
        const [r = 0, g = 0, b = 0] = (mark.background.match(/\d+/g) ?? []).map(Number);
        expect(r).toBeGreaterThan(180);
        expect(Math.max(g, b)).toBeLessThan(120);
        // Each part of a name on one line, at the phone's width too.
        expect(await page.evaluate(BROKEN_WORDS)).toEqual([]);
        const lease = page.locator('#resources-table thead th').nth(3);
        expect((await lease.textContent())?.trim()).toBe('Lease ends in');
        expect(await lease.getAttribute('title')).toMatch(/lapses unless it is renewed/);
        await page.close();
      });

      it(`opens a lever at its row with its own fields, naming holder, run and next, ${scheme}, ${size.name}`, async () => {
        const page = await openConsole(scheme, size);
        const production = row(page, PRODUCTION);
        await production.locator('button.revoke').click();
        const leverRow = page.locator('#resources-body tr.lever-row');
        await expect.poll(() => leverRow.getAttribute('data-lever-for')).toBe(PRODUCTION);
        // The row just after the resource's own.
        expect(
          await production.evaluate((el) => el.nextElementSibling?.classList.contains('lever-row')),
        ).toBe(true);
        // Right under its row, not a page further down.
        const rowBox = (await production.boundingBox())!;
        const formBox = (await page.locator('#revoke-form').boundingBox())!;
        expect(formBox.y - (rowBox.y + rowBox.height)).toBeLessThan(40);
        expect(await page.locator('#lever-heading').textContent()).toBe(`Revoke ${PRODUCTION}`);
        const visible = async (id: string) => page.locator(`#${id}`).isVisible();
        expect(await visible('reason-label')).toBe(true);
        expect(await visible('admin-label')).toBe(true);
        for (const hidden of ['for-label', 'agent-label', 'approver-label', 'resource-label']) {
          expect(await visible(hidden), hidden).toBe(false);
        }
        await page.locator('#admin-key').fill(ADMIN);
        await page.locator('#lever-submit').click();
        const said = (await page.locator('#lever-consequence').textContent()) ?? '';
        expect(said).toContain(`${did(41)} (acme/shop run #41) loses it now`);
        expect(said).toContain(`Next in line: ${did(42)} (acme/shop run #42).`);
        expect(await page.locator('#lever-submit').textContent()).toBe('Confirm: revoke');
        // Another lever on the same row: its own fields, the CLI's durations.
        await page.locator('#lever-close').click();
        await expect.poll(() => leverRow.count()).toBe(0);
        await production.locator('button.freeze').click();
        expect(await visible('for-label')).toBe(true);
        // What was typed stays with the form as it moves from lever to lever.
        expect(await page.locator('#admin-key').inputValue()).toBe(ADMIN);
        await page.locator('#lever-for').fill('30');
        await page.locator('#lever-submit').click();
        expect(await page.locator('#revoke-result').textContent()).toMatch(
          /^For: expected a duration such as '90m', '4h' or '3d'/,
        );
        await page.locator('#lever-for').fill('3d');
        expect(await page.locator('#revoke-result').textContent()).toBe('');
        await page.locator('#lever-close').click();
        await page.screenshot({
          path: `${SHOTS}/console-${scheme}-${size.name}.png`,
          fullPage: size.name === 'phone',
        });
        await page.close();
      });

      it(`says locked, not empty, without the kernel's key, ${scheme}, ${size.name}`, async () => {
        const page = await openConsole(scheme, size, false);
        await expect
          .poll(() => page.locator('#resources-body').textContent())
          .toBe('Locked: this kernel shows its state only to its key. Type the key above.');
        expect(await page.locator('#resources-body').textContent()).not.toContain('No resource');
        await page.close();
      });
    }
  }

  it('freezes for 3d from the row, and says the day it ends', async () => {
    const page = await openConsole('light', WIDTHS[0]);
    await row(page, PRODUCTION).locator('button.freeze').click();
    await page.locator('#admin-key').fill(ADMIN);
    await page.locator('#revoke-reason').fill('release freeze');
    await page.locator('#lever-for').fill('3d');
    await page.locator('#lever-submit').click();
    await page.locator('#lever-submit').click();
    await expect
      .poll(() => page.locator('#revoke-result').textContent())
      .toMatch(/^Froze lock:deploy\/production until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\.$/);
    const overview = (await (
      await fetch(`${kernel.url}/api/v1/kernel/resources`, {
        headers: { authorization: `Bearer ${KEY}` },
      })
    ).json()) as {
      nowMs: number;
      resources: Array<{ resource: string; frozen?: { untilMs: number | null } }>;
    };
    const frozen = overview.resources.find((r) => r.resource === PRODUCTION)?.frozen;
    const left = frozen!.untilMs! - overview.nowMs;
    expect(left).toBeGreaterThan(3 * DAY_MS - 120_000);
    expect(left).toBeLessThanOrEqual(3 * DAY_MS);
    await page.close();
  });
});
