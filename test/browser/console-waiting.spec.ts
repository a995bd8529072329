import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { coordinate, kernelAndBrowser } from './support.js';

/**
 * In Chromium against the committed CLI's kernel: a waiter's wait counts from
 * when it first asked, by the kernel's clock (`sinceMs`), so a reload does not
 * reset it; and the resources table follows the overview's pages past the
 * console's page of 5,000 and shows every resource.
 */

const KEY = 'kernel-key-for-the-waiting-test';
const ME = 'did:web:acme.example:agent:bulk';
/** One more page than the console asks for at once (5,000), and a few. */
const COUNT = 5_020;
const bulk = (i: number) => `lock:bulk/${String(i).padStart(5, '0')}`;

const lease = (
  url: string,
  body: Record<string, unknown>,
  wait?: { seconds: number; signal: AbortSignal },
) => coordinate(url, KEY, body, wait ? { wait } : {});

describe('the console in Chromium: waits and pages', () => {
  // Leases of 10 min, so none lapses while the test reads.
  const rig = kernelAndBrowser(['--ttl-ms', '600000', '--quiet'], { LEASE_GATE_KERNEL_KEY: KEY });

  async function openConsole(page: Page): Promise<void> {
    await page.goto(rig.kernel.url);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-form button').click();
    // 5,000 rows and more take a while to fetch and draw on a busy machine.
    await expect
      .poll(() => page.locator('#status').textContent(), { timeout: 30_000 })
      .toMatch(/^Updated/);
  }

  it("keeps a waiter's waited time across a reload: it is the kernel's, since the first ask", async () => {
    const resource = 'lock:deploy/wait-test';
    const waiter = 'did:web:acme.example:agent:waiter';
    expect((await lease(rig.kernel.url, { resource, actorDid: ME })).status).toBe(200);
    // The waiter holds its request open, as the gate does.
    void lease(
      rig.kernel.url,
      { resource, actorDid: waiter },
      { seconds: 55, signal: rig.held.signal },
    ).catch(() => undefined);
    const sinceMs = async () => {
      const res = await fetch(`${rig.kernel.url}/api/v1/kernel/resources?detail=1`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      const body = (await res.json()) as {
        resources: Array<{ resource: string; queue: Array<{ sinceMs?: number }> }>;
      };
      return body.resources.find((r) => r.resource === resource)?.queue[0]?.sinceMs;
    };
    await expect.poll(sinceMs).toEqual(expect.any(Number));
    const asked = (await sinceMs())!;

    const page = await rig.chrome.browser.newPage({ viewport: { width: 1200, height: 900 } });
    await openConsole(page);
    const wait = page.locator(
      `#resources-body tr[data-resource="${resource}"] td.waiting li span.since`,
    );
    await expect.poll(() => wait.getAttribute('data-since')).toBe(String(asked));
    await expect.poll(() => wait.textContent()).toMatch(/waiting \d/);

    // A page that counted from when it first saw the waiter would start again here.
    await page.reload();
    await openConsole(page);
    await expect.poll(() => wait.getAttribute('data-since')).toBe(String(asked));
    await expect.poll(() => wait.textContent()).toMatch(/waiting \d/);
    await page.close();
  });

  it('pages through more resources than one page of the overview and lists them all', async () => {
    // 5,020 leases through HTTP, 25 at a time on kept-alive connections.
    let next = 0;
    const worker = async () => {
      while (next < COUNT) {
        const res = await lease(rig.kernel.url, { resource: bulk(next++), actorDid: ME });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 25 }, worker));

    const page = await rig.chrome.browser.newPage({ viewport: { width: 1200, height: 900 } });
    await openConsole(page);
    const rows = page.locator('#resources-body tr[data-resource^="lock:bulk/"]');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(COUNT);
    // The first page's first, the second page's first and the last one, each once.
    for (const i of [0, 5_000, COUNT - 1])
      expect(await page.locator(`#resources-body tr[data-resource="${bulk(i)}"]`).count()).toBe(1);
    await page.close();
  }, 240_000);
});
