import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createPlaneClient, type PlaneClient } from '../../src/plane/client.js';
import { SOURCE_CLI, startKernelProcess, type KernelProcess } from '../support/kernel-process.js';
import { ARTIFACTS, launch, type OpenBrowser } from './support.js';

/**
 * What a new user and an operator read (issue #37 items 1, 2, 6), in Chromium at a laptop's
 * and a phone's width, light and dark: every text at WCAG AA contrast, the timeline laid out
 * for a phone, the history paged above the levers, and the console's words (a wrong or a
 * missing admin key, the checkpoint without a key, the operator's name in the ledger, local
 * times with UTC on hover, ticks at round times). The kernel runs from source (its freeze
 * `by` is newer than dist/); the pages are dist/console, built by scripts/build-console.mjs.
 */

const KEY = 'kernel-key-for-the-readable-test';
const ADMIN = 'admin-key-for-the-readable-test';
const did = (n: number) =>
  `did:web:github.com:acme:shop:actions:runs:${n}:attempts:1:jobs:deploy:n1`;
const SCHEMES = ['light', 'dark'] as const;
/** Longer than a phone's row: its label is cut in the middle, the whole name on hover. */
const LONG = 'lock:deploy/a-rather-long-resource-name-for-a-phone-screen/production-eu-west';
const WIDTHS = [
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/**
 * Every visible text of the page whose contrast with what is behind it is under 4.5:1 (WCAG AA):
 * an HTML text's colour, an SVG text's fill, a ::before's content, each against its
 * effective background (the colours up to the first opaque one, composed).
 */
const LOW_CONTRAST = `(() => {
  const parse = (c) => {
    const m = /^rgba?\\(([^)]*)\\)$/.exec(c);
    if (!m) return null;
    const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p[3] ?? 1];
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) layers.push(c);
      if (c && c[3] >= 1) break;
    }
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const failures = [];
  const check = (el, text, colour) => {
    const fg = parse(colour);
    const bg = background(el);
    const r = fg ? ratio(over(fg, bg), bg) : 0;
    if (r < 4.5) failures.push({ text: text.slice(0, 40), tag: el.tagName + '.' + (el.getAttribute('class') ?? ''), colour, bg: bg.slice(0, 3).join(','), ratio: Math.round(r * 100) / 100 });
  };
  for (const el of document.body.querySelectorAll('*')) {
    if (['TITLE', 'SCRIPT', 'STYLE', 'OPTION', 'title'].includes(el.tagName)) continue;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(el);
    const own = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim()).map((n) => n.textContent.trim()).join(' ');
    if (own) check(el, own, el instanceof SVGElement ? style.fill : style.color);
    const before = getComputedStyle(el, '::before');
    if (before.content && !['none', 'normal', '""'].includes(before.content)) check(el, before.content, before.color);
  }
  return failures;
})()`;

describe('the console and the playground, readable in both schemes and at both widths', () => {
  let kernel: KernelProcess;
  let chrome: OpenBrowser;
  let client: PlaneClient;

  beforeAll(async () => {
    kernel = await startKernelProcess(
      ['--ttl-ms', '60000', '--quiet'],
      { LEASE_GATE_KERNEL_KEY: KEY, LEASE_GATE_ADMIN_KEY: ADMIN },
      SOURCE_CLI,
    );
    client = createPlaneClient({ apiUrl: kernel.url, key: KEY });
    chrome = await launch();
    // A history longer than a page: 30 holds given back, one revoked, one held with a waiter.
    for (let n = 1; n <= 30; n += 1) {
      await client.lease({ resource: 'lock:deploy/staging', actorDid: did(n) });
      await client.release({ resource: 'lock:deploy/staging', actorDid: did(n) });
    }
    await client.lease({ resource: 'lock:deploy/canary', actorDid: did(40) });
    await client.revoke('lock:deploy/canary', 'stuck', ADMIN);
    await client.lease({ resource: 'lock:deploy/production', actorDid: did(41) });
    await client.lease({ resource: 'lock:deploy/production', actorDid: did(42) });
    await client.freeze({ resource: 'lock:db/migrations', reason: 'incident 7' }, ADMIN);
    await client.lease({ resource: LONG, actorDid: did(43) });
    await client.release({ resource: LONG, actorDid: did(43) });
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await client?.close();
    await kernel?.stop();
  });

  async function openConsole(
    scheme: (typeof SCHEMES)[number],
    size: (typeof WIDTHS)[number],
    options: { key?: boolean; timezoneId?: string } = {},
  ): Promise<Page> {
    const page = await chrome.browser.newPage({
      viewport: { width: size.width, height: size.height },
      timezoneId: options.timezoneId ?? 'UTC',
    });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(kernel.url);
    if (options.key === false) return page;
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Updated/);
    await expect
      .poll(() => page.locator('#timeline text.label').count(), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(3);
    return page;
  }

  for (const scheme of SCHEMES) {
    for (const size of WIDTHS) {
      it(`every text of the console and the playground passes AA contrast, ${scheme}, ${size.name}`, async () => {
        const page = await openConsole(scheme, size);
        expect(await page.evaluate(LOW_CONTRAST)).toEqual([]);
        // The lever's words too, error and all.
        await page.locator('#revoke-resource').fill('lock:deploy/production');
        await page.locator('#lever-submit').click();
        await expect.poll(() => page.locator('#revoke-result').textContent()).toMatch(/admin key/);
        expect(await page.evaluate(LOW_CONTRAST)).toEqual([]);
        await page.close();

        const playground = await chrome.browser.newPage({
          viewport: { width: size.width, height: size.height },
        });
        await playground.emulateMedia({ colorScheme: scheme });
        await playground.goto(`${kernel.url}/playground`);
        await playground.locator('#start-job').click();
        await playground.locator('#start-job').click();
        await expect
          .poll(() => playground.locator('#jobs .state.waiting').count())
          .toBeGreaterThanOrEqual(1);
        await playground.locator('#revoke').click();
        await expect.poll(() => playground.locator('#timeline text.label').count()).toBe(1);
        expect(await playground.evaluate(LOW_CONTRAST)).toEqual([]);
        await playground.close();
      });

      it(`lays the timeline out for its width, the history paged above the levers, ${scheme}, ${size.name}`, async () => {
        const page = await openConsole(scheme, size);
        const layout = await page.evaluate<{
          labelPx: number[];
          tickPx: number[];
          svgRight: number;
          pageWidth: number;
        }>(`(() => {
          const px = (el) => parseFloat(getComputedStyle(el).fontSize) * el.getScreenCTM().a;
          const svg = document.querySelector('#timeline svg');
          return {
            labelPx: [...document.querySelectorAll('#timeline text.label')].map(px),
            tickPx: [...document.querySelectorAll('#timeline text.tick')].map(px),
            svgRight: svg.getBoundingClientRect().right,
            pageWidth: document.documentElement.scrollWidth,
          };
        })()`);
        expect(Math.min(...layout.labelPx)).toBeGreaterThanOrEqual(11);
        expect(Math.min(...layout.tickPx)).toBeGreaterThanOrEqual(11);
        // Nothing wider than the screen.
        expect(layout.pageWidth).toBeLessThanOrEqual(size.width);
        expect(layout.svgRight).toBeLessThanOrEqual(size.width);
        // Every label inside the chart, none over another's row.
        const labels = await page.locator('#timeline text.label').evaluateAll((els) =>
          els.map((el) => {
            const r = el.getBoundingClientRect();
            return { top: r.top, bottom: r.bottom, right: r.right };
          }),
        );
        const long = page.locator('#timeline text.label', { has: page.locator('title') }).filter({
          hasText: 'production-eu-west',
        });
        expect(await long.locator('title').textContent()).toBe(LONG);
        expect(await long.evaluate((el) => el.firstChild!.textContent)).toMatch(
          /^lock:deploy\/.*….*eu-west$/,
        );
        for (const [i, label] of labels.entries()) {
          expect(label.right).toBeLessThanOrEqual(size.width);
          if (i > 0) expect(label.top).toBeGreaterThanOrEqual(labels[i - 1]!.bottom);
        }
        // 33 holds and a freeze: a page of them, the rest a button away, the levers near.
        const rows = page.locator('#history-body tr');
        const pageSize = size.name === 'phone' ? 5 : 15;
        await expect.poll(() => rows.count()).toBe(pageSize);
        const history = await page.locator('section:has(#history-table)').boundingBox();
        expect(history!.height).toBeLessThan(1_500);
        const more = page.locator('#history-more');
        expect(await more.textContent()).toBe(`Show older (${34 - pageSize} not shown)`);
        await more.click();
        await expect.poll(() => rows.count()).toBe(Math.min(34, 2 * pageSize));
        if (scheme === 'light' || size.name === 'phone') {
          await page.locator('#history-filter').fill('');
          await page.reload();
          await page.locator('#key-input').fill(KEY);
          await page.locator('#key-form button').click();
          await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(pageSize);
          await page.screenshot({
            path: `${ARTIFACTS}/readable-${scheme}-${size.name}.png`,
            fullPage: true,
          });
        }
        await page.close();
      });

      it(`says why the checkpoint is not checked, and catches a missing admin key at once, ${scheme}, ${size.name}`, async () => {
        const keyless = await openConsole(scheme, size, { key: false });
        await expect
          .poll(() => keyless.locator('#checkpoint-mark').textContent())
          .toBe(
            'Not checked: this kernel needs its key (LEASE_GATE_KERNEL_KEY) to serve its ledger; type it above.',
          );
        await keyless.close();

        const page = await openConsole(scheme, size);
        const row = page.locator('#resources-body tr[data-resource="lock:deploy/production"]');
        await row.locator('button.revoke').click();
        // Said as the lever is chosen, and the first click stays a review, never a confirm.
        const result = page.locator('#revoke-result');
        expect(await result.textContent()).toBe(
          'Type the admin key (LEASE_GATE_ADMIN_KEY) first: every lever needs it.',
        );
        expect(await page.evaluate('document.activeElement.id')).toBe('admin-key');
        await page.locator('#lever-submit').click();
        expect(await page.locator('#lever-submit').textContent()).toBe('Review…');
        expect(await result.textContent()).toMatch(/^Type the admin key/);
        // A name not of the form is caught before Review too.
        await page.locator('#admin-key').fill(ADMIN);
        expect(await result.textContent()).toBe('');
        await page.locator('#operator-name').fill('alice <b>');
        await page.locator('#lever-submit').click();
        expect(await result.textContent()).toMatch(/^Your name: expected a name of 1 to 64/);
        expect(await page.locator('#lever-submit').textContent()).toBe('Review…');
        await page.close();
      });
    }
  }

  it('says the kernel refused a wrong admin key, and records the name an operator gives', async () => {
    const page = await openConsole('dark', WIDTHS[1]);
    const resource = 'lock:deploy/production';
    const result = page.locator('#revoke-result');
    await page.locator('#lever').selectOption('freeze');
    await page.locator('#revoke-resource').fill(resource);
    await page.locator('#admin-key').fill('not-the-admin-key');
    await page.locator('#lever-submit').click();
    await page.locator('#lever-submit').click();
    await expect
      .poll(() => result.textContent())
      .toMatch(/^Not done \(freeze\): the kernel refused this admin key/);

    await page.locator('#admin-key').fill(ADMIN);
    await page.locator('#operator-name').fill('alice@ops');
    await page.locator('#revoke-reason').fill('incident 8');
    await page.locator('#lever-submit').click();
    await page.locator('#lever-submit').click();
    await expect.poll(() => result.textContent()).toBe(`Froze ${resource} until unfrozen.`);
    await page.locator('#history-filter').fill('alice');
    await expect
      .poll(() => page.locator('#history-body').textContent(), { timeout: 10_000 })
      .toContain('frozen by operator:alice@ops: incident 8');
    await page.locator('#lever').selectOption('unfreeze');
    await page.locator('#operator-name').fill('bob');
    await page.locator('#lever-submit').click();
    await page.locator('#lever-submit').click();
    await expect.poll(() => result.textContent()).toBe(`Unfroze ${resource}.`);
    await page.locator('#history-filter').fill('bob');
    await expect
      .poll(() => page.locator('#history-body').textContent(), { timeout: 10_000 })
      .toContain('unfrozen by operator:bob');
    await page.close();
  });

  for (const size of WIDTHS) {
    it(`shows times in the browser's zone with UTC on hover, ticks at round times, ${size.name}`, async () => {
      // Kolkata is UTC+05:30: a round local time is not a round UTC hour.
      const page = await openConsole('light', size, { timezoneId: 'Asia/Kolkata' });
      const start = page.locator('#history-body tr td[data-label="Start"]').first();
      const shown = (await start.textContent())!;
      const utc = (await start.getAttribute('title'))!;
      expect(shown).toMatch(/^\d{2}:\d{2}:\d{2} UTC\+05:30$/);
      expect(utc).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
      const local = new Date(Date.parse(`${utc.slice(0, 19).replace(' ', 'T')}Z`) + 330 * 60_000);
      expect(shown.slice(0, 8)).toBe(local.toISOString().slice(11, 19));
      expect(await page.locator('#status').textContent()).toMatch(
        /^Updated \d\d:\d\d:\d\d UTC\+05:30$/,
      );
      for (const span of ['quarter', 'hour', 'day', 'week']) {
        await page.locator(`button[data-span="${span}"]`).click();
        const ticks = await page
          .locator('#timeline text.tick:not(.last)')
          .evaluateAll((els) =>
            els.map((el) => [el.firstChild!.textContent!, el.querySelector('title')!.textContent!]),
          );
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        const steps = ticks.map(([, title]) =>
          Date.parse(`${title!.slice(0, 19).replace(' ', 'T')}Z`),
        );
        const step = steps[1]! - steps[0]!;
        for (const [label, title] of ticks) {
          expect(label).toMatch(
            span === 'day' || span === 'week' ? /^\d{2}-\d{2} \d{2}:\d{2}$/ : /^\d{2}:\d{2}$/,
          );
          // A whole step of the local clock: 10:05, 10:10 in Kolkata (04:35, 04:40 UTC).
          const atMs = Date.parse(`${title!.slice(0, 19).replace(' ', 'T')}Z`);
          expect((atMs + 330 * 60_000) % step).toBe(0);
        }
        expect(step % 60_000).toBe(0);
      }
      await page.close();
    });
  }
});
