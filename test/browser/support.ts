import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots of every run, for people to look at (gitignored). */
export const ARTIFACTS = 'test/browser/artifacts';

export interface OpenBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launch(): Promise<OpenBrowser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // playwright gives every launch a fresh, empty --user-data-dir of its own.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

/** Every URL the page asks for, to show that none leaves its origin. */
export function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  return urls;
}

/** Load time and weight of the page just opened, from the browser's own timing. */
export async function pageCost(page: Page): Promise<{ loadMs: number; bytes: number }> {
  // A string, so that the page's DOM types are not needed under Node's.
  return page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const assets = performance.getEntriesByType('resource').filter((r) => !r.name.includes('/api/'));
    const bytes = nav.encodedBodySize + assets.reduce((n, r) => n + r.encodedBodySize, 0);
    return { loadMs: Math.round(nav.loadEventEnd - nav.startTime), bytes };
  })()`);
}
