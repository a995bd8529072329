import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createPlaneClient, type PlaneClient } from '../../src/plane/client.js';
import { startKernelProcess, type KernelProcess } from '../support/kernel-process.js';
import { launch, type OpenBrowser } from './support.js';

/**
 * What the console tells an operator beyond the levers, in Chromium against the committed
 * CLI's kernel: notifications given up and the freeze windows in force or next, the history
 * filter, the timeline's zoom (24 h labels, nothing past now), plane-supplied text shown as
 * text, dark mode and the favicon.
 */

const KEY = 'kernel-key-for-the-operator-test';
const ADMIN = 'admin-key-for-the-operator-test';
const A = 'did:web:github.com:acme:shop:actions:runs:7001:attempts:1:jobs:deploy:n1';
const B = 'did:web:github.com:acme:shop:actions:runs:7002:attempts:1:jobs:deploy:n2';
const HOSTILE = '<img src=x onerror="window.pwned=1">';

describe('what the console tells an operator, in Chromium', () => {
  let dir: string;
  let receiver: Server;
  let health: Server;
  let kernel: KernelProcess;
  let chrome: OpenBrowser;
  let client: PlaneClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-operator-'));
    // A receiver that refuses for good (410): each delivery is given up at its first answer.
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(410).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    // A health check that fails: the health gate holds lock:app/delta.
    health = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => health.listen(0, '127.0.0.1', resolve));
    const check = `http://127.0.0.1:${(health.address() as AddressInfo).port}/healthz`;
    writeFileSync(join(dir, 'secret'), 'a-notify-secret-of-some-length');
    writeFileSync(
      join(dir, 'windows.json'),
      JSON.stringify({
        windows: [
          {
            name: 'nightly',
            schedule: '30 2 * * *',
            duration: '45m',
            timeZone: 'UTC',
            resources: ['lock:deploy/*'],
            reason: 'nightly database maintenance',
          },
        ],
      }),
    );
    kernel = await startKernelProcess(
      [
        ...['--ttl-ms', '60000', '--quiet', '--windows', join(dir, 'windows.json')],
        ...['--notify', hook, '--notify-secret-file', join(dir, 'secret')],
        ...['--health-check', `lock:app/delta=${check}`],
      ],
      { LEASE_GATE_KERNEL_KEY: KEY, LEASE_GATE_ADMIN_KEY: ADMIN },
    );
    client = createPlaneClient({ apiUrl: kernel.url, key: KEY });
    chrome = await launch();
    // History on two resources, one still held; a freeze whose reason is markup.
    await client.lease({ resource: 'lock:app/alpha', actorDid: A });
    await client.release({ resource: 'lock:app/alpha', actorDid: A });
    await client.lease({ resource: 'lock:app/beta', actorDid: B });
    await client.freeze({ resource: 'lock:app/gamma', reason: HOSTILE }, ADMIN);
  });
  afterAll(async () => {
    await chrome?.close();
    await client?.close();
    await kernel?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
    await new Promise((resolve) => health?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  async function openConsole(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const page = await chrome.browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.emulateMedia({ colorScheme });
    await page.goto(kernel.url);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Updated/);
    return page;
  }

  it('shows notifications given up, with what and why, and the freeze windows', async () => {
    const page = await openConsole();
    const summary = page.locator('#notifications-summary');
    await expect
      .poll(() => summary.textContent(), { timeout: 10_000 })
      .toMatch(/[1-9]\d* given up/);
    expect(await summary.getAttribute('class')).toContain('error');
    const failures = await page.locator('#notifications-failures li').allTextContents();
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.join('\n')).toMatch(
      /grant on lock:app\/alpha to http:\/\/127\.0\.0\.1:\d+: HTTP 410/,
    );

    const windows = await page.locator('#windows-list li').allTextContents();
    expect(windows).toHaveLength(1);
    expect(windows[0]).toMatch(
      /^nightly \(30 2 \* \* \*, UTC, for 45 min\) on lock:deploy\/\*: nightly database maintenance — (next from \d{4}-\d{2}-\d{2} 02:30 UTC|in force, .* left)$/,
    );
    await page.close();
  });

  it('shows the health checks, and the resource a failing one holds as frozen', async () => {
    const page = await openConsole();
    const checks = page.locator('#health-list li');
    await expect
      .poll(() => checks.allTextContents(), { timeout: 10_000 })
      .toEqual([
        expect.stringMatching(
          /^lock:app\/delta: failing — http:\/\/127\.0\.0\.1:\d+\/healthz answered 503, checked .* ago$/,
        ),
      ]);
    expect(await checks.first().getAttribute('class')).toContain('error');
    const row = page.locator('#resources-body tr[data-resource="lock:app/delta"]');
    await expect.poll(() => row.textContent()).toContain('answered 503');
    await page.close();
  });

  it('shows plane-supplied markup as text, and filters the history', async () => {
    const page = await openConsole();
    const row = page.locator('#resources-body tr[data-resource="lock:app/gamma"]');
    await expect.poll(() => row.textContent()).toContain(HOSTILE);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();

    const history = page.locator('#history-body tr');
    await expect.poll(() => history.count()).toBeGreaterThanOrEqual(3);
    await page.locator('#history-filter').fill('alpha');
    await expect.poll(() => history.count()).toBe(1);
    expect(await history.first().textContent()).toContain('lock:app/alpha');
    await page.locator('#history-filter').fill(B.slice(-20));
    await expect.poll(() => history.count()).toBe(1);
    expect(await history.first().textContent()).toContain('lock:app/beta');
    await page.locator('#history-filter').fill('no such deploy');
    await expect.poll(() => history.allTextContents()).toEqual(['Nothing in the ledger matches.']);
    await page.close();
  });

  it('zooms the timeline from 15 minutes to a week, 24 h labels, nothing drawn past now', async () => {
    const page = await openConsole();
    // A tick's own text, its <title> (the UTC time, on hover) aside.
    const ticks = () =>
      page
        .locator('#timeline text.tick')
        .evaluateAll((els) => els.map((el) => el.firstChild?.textContent ?? ''));
    for (const [span, label] of [
      ['quarter', /^\d{2}:\d{2}$/],
      ['hour', /^\d{2}:\d{2}$/],
      ['day', /^\d{2}-\d{2} \d{2}:\d{2}$/],
      ['week', /^\d{2}-\d{2} \d{2}:\d{2}$/],
    ] as const) {
      await page.locator(`button[data-span="${span}"]`).click();
      expect(await page.locator(`button[data-span="${span}"]`).getAttribute('class')).toBe('on');
      const labels = await ticks();
      // Ticks at round times, as many as fit (console-readable.spec.ts checks which).
      expect(labels.length).toBeGreaterThanOrEqual(3);
      expect(labels.at(-1)).toBe('now');
      // 24 h clock: no AM/PM, hours 00–23.
      for (const l of labels.slice(0, -1)) expect(l).toMatch(label);
      // Every hold ends at or before the "now" line.
      const [now, ends] = await page.evaluate<[number, number[]]>(`(() => {
        const x = (el, name) => Number(el.getAttribute(name));
        const grid = [...document.querySelectorAll('#timeline line.grid')];
        const holds = [...document.querySelectorAll('#timeline rect.hold')];
        return [x(grid[grid.length - 1], 'x1'), holds.map((r) => x(r, 'x') + x(r, 'width'))];
      })()`);
      expect(ends.length).toBeGreaterThanOrEqual(2);
      for (const end of ends) expect(end).toBeLessThanOrEqual(now + 0.5);
    }
    await page.close();
  });

  it('says before a freeze what becomes of the holder and the queue, and the checkpoint in words', async () => {
    const page = await openConsole();
    await page.locator('#lever').selectOption('freeze');
    await page.locator('#revoke-resource').fill('lock:app/beta');
    await page.locator('#revoke-resource').dispatchEvent('change');
    const said = page.locator('#lever-consequence');
    await expect.poll(() => said.textContent()).toMatch(/^The holder, /);
    expect(await said.textContent()).toBe(
      `The holder, ${B} (acme/shop run 7002), keeps it: its command runs on and renews (revoke it too to stop it). Nobody new is granted it until it is unfrozen or the freeze ends; waiting jobs are told "frozen" and wait within their wait-timeout. Nobody waits.`,
    );
    await page.locator('#revoke-resource').fill('lock:app/nobody');
    await page.locator('#revoke-resource').dispatchEvent('change');
    await expect.poll(() => said.textContent()).toMatch(/^Nobody holds it\./);

    const mark = page.locator('#checkpoint-mark');
    await expect.poll(() => mark.textContent()).toMatch(/^✓ Verified/);
    const words =
      /^✓ Verified in this page: the checkpoint is signed by the key of (\S+); the log holds (\d+) entries, the latest (\d+) were each proved to be in it, the newest at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) UTC\.$/.exec(
        (await mark.textContent()) ?? '',
      );
    expect(words).not.toBeNull();
    const [, origin, size, proved, newest] = words!;
    expect(origin).toBe(await page.locator('#checkpoint-origin').textContent());
    // grant, release, grant, freeze at least; each proved; the newest within the last minute.
    expect(Number(size)).toBeGreaterThanOrEqual(4);
    expect(Number(proved)).toBe(Number(size));
    expect(Date.now() - Date.parse(`${newest!.replace(' ', 'T')}Z`)).toBeLessThan(60_000);
    // The raw signed note is there, folded away.
    expect(await page.locator('details:has(#checkpoint-text)').getAttribute('open')).toBeNull();
    expect(await page.locator('#checkpoint-text').textContent()).toContain(origin!);
    await page.close();
  });

  it('follows the dark colour scheme, and serves its favicon', async () => {
    // The page's background, 0 (black) to 1 (white).
    const luminance = (page: Page) =>
      page.evaluate<number>(`(() => {
        const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/\\d+/g).map(Number);
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
      })()`);
    const light = await openConsole('light');
    const dark = await openConsole('dark');
    expect(await luminance(light)).toBeGreaterThan(0.8);
    expect(await luminance(dark)).toBeLessThan(0.2);
    await light.close();
    await dark.close();
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const answer = await fetch(`${kernel.url}${path}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(await answer.text()).toMatch(/^<svg/);
    }
  });
});
