import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';

/**
 * The overview pages past 10,000 resources (the console follows `next`), and
 * every API answer, keyed or not, carries `Cache-Control: no-store`.
 */

const KEY = 'kernel-key-77';
const COUNT = 10_050;
const ME = 'did:web:acme.example:agent:bulk';
const name = (i: number) => `lock:bulk/${String(i).padStart(5, '0')}`;
let kernel: RunningKernel;
const auth = { authorization: `Bearer ${KEY}` };

beforeAll(async () => {
  // Leases of 10 min, so none lapses while the test reads.
  kernel = await startKernelServer({
    key: KEY,
    table: new ResourceTable({ ttlMs: 600_000 }),
    log: () => undefined,
  });
  // 10,050 leases through HTTP, 25 at a time on kept-alive connections.
  let next = 0;
  const worker = async () => {
    while (next < COUNT) {
      const i = next++;
      const res = await fetch(`${kernel.url}/api/v1/acp/coordination/lease`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ resource: name(i), actorDid: ME }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 25 }, worker));
}, 300_000);

afterAll(async () => {
  await kernel?.close();
});

const get = async (path: string, headers: Record<string, string> = auth) => {
  const res = await fetch(`${kernel.url}${path}`, { headers });
  return { res, body: (await res.json()) as Record<string, unknown> };
};

describe('the overview past 10,000 resources', () => {
  it('pages by name: every resource once, in order, each page within the console cap', async () => {
    const seen: string[] = [];
    let after: string | null | undefined;
    let pages = 0;
    do {
      const query = `limit=5000${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const { body } = await get(`/api/v1/kernel/resources?${query}`);
      const rows = body.resources as Array<{ resource: string }>;
      // The console's schema takes at most 5,000 rows a page.
      expect(rows.length).toBeLessThanOrEqual(5_000);
      seen.push(...rows.map((r) => r.resource));
      after = body.next as string | null;
      pages += 1;
    } while (after && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(COUNT);
    expect(seen).toEqual(Array.from({ length: COUNT }, (_, i) => name(i)));
  });

  it('answers 1000 by default, and refuses a bad limit or after naming it', async () => {
    const { body } = await get('/api/v1/kernel/resources');
    expect((body.resources as unknown[]).length).toBe(1_000);
    expect(body.next).toBe(name(999));
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=5001', 'limit'],
      ['limit=abc', 'limit'],
      ['after=%20x', 'after'],
    ]) {
      const { res, body: refused } = await get(`/api/v1/kernel/resources?${query}`);
      expect(res.status).toBe(400);
      expect(refused.message).toContain(field);
    }
  });
});

describe('Cache-Control', () => {
  it('is no-store on every API answer: keyed, refused and errors', async () => {
    const answers = await Promise.all([
      fetch(`${kernel.url}/api/v1/kernel/resources?limit=1`, { headers: auth }),
      fetch(`${kernel.url}/api/v1/acp/coordination/lease?resource=${name(1)}`, { headers: auth }),
      fetch(`${kernel.url}/api/v1/kernel/resources`),
      fetch(`${kernel.url}/api/v1/nothing`, { headers: auth }),
      fetch(`${kernel.url}/healthz`),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 404, 200]);
    for (const res of answers) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      await res.arrayBuffer();
    }
  });
});
