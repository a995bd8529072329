import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startKernelProcess, type KernelProcess } from '../support/kernel-process.js';

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

/** The committed CLI (dist/) as its own process, and what it wrote to stderr so far. */
export interface CliProcess {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `lease-gate <args>` from the committed CLI, with PATH and `env` only, its stderr kept. */
export function spawnCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, ['dist/cli/index.js', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return { child, stderr: () => stderr, exited: new Promise((r) => child.on('close', r)) };
}

/** `lease-gate run` of a short command (it says "deployed") once `did` holds `resource`. */
export const leaseGateRun = (url: string, resource: string, did: string, key: string) =>
  spawnCli(
    [
      ...['run', '--api-url', url, '--resource', resource],
      ...[
        '--actor-did',
        did,
        '--wait-timeout',
        '2m',
        '--',
        'node',
        '-e',
        'console.error("deployed")',
      ],
    ],
    { LEASE_GATE_KEY: key },
  );

/**
 * A lease request (or a release: `path`) as the gate sends it, with `key`; `wait` holds it
 * (a blocking acquire) until its signal aborts it.
 */
export function coordinate(
  url: string,
  key: string,
  body: Record<string, unknown>,
  { path = 'lease', wait }: { path?: string; wait?: { seconds: number; signal: AbortSignal } } = {},
): Promise<Response> {
  return fetch(`${url}/api/v1/acp/coordination/${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(wait ? { prefer: `wait=${wait.seconds}` } : {}),
    },
    body: JSON.stringify(body),
    ...(wait ? { signal: wait.signal } : {}),
  });
}

/**
 * For the describe it is called in: the committed CLI's kernel (`args`, `env`) and a
 * Chromium, started before its tests and closed after them; `held` aborts, at the end,
 * the requests a test held open (as the gate does).
 */
export function kernelAndBrowser(args: string[], env: Record<string, string>) {
  const rig = {
    kernel: undefined as unknown as KernelProcess,
    chrome: undefined as unknown as OpenBrowser,
    held: new AbortController(),
  };
  beforeAll(async () => {
    rig.kernel = await startKernelProcess(args, env);
    rig.chrome = await launch();
  });
  afterAll(async () => {
    rig.held.abort();
    await rig.chrome?.close();
    await rig.kernel?.stop();
  });
  return rig;
}
