import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { A, B, C } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * Each waiter's `sinceMs`: when it first asked, by the kernel's clock, so the
 * console's "waiting 3 min" survives a reload. Only `?detail=1` shows it; a plain
 * GET answers as before (its callers compare the queue exactly).
 */

const R = 'lock:since';
let kernel: RunningKernel | undefined;
let clock = 1_800_000_000_000;

closeAfterEach(() => [kernel]);

async function lease(actorDid: string) {
  const res = await fetch(`${kernel!.url}/api/v1/acp/coordination/lease`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resource: R, actorDid }),
  });
  return (await res.json()) as { ok: boolean };
}

const overview = async (query = '') => {
  const res = await fetch(`${kernel!.url}/api/v1/kernel/resources${query}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe("a waiter's sinceMs", () => {
  it('is when it first asked, kept while it asks again, and shown only on ?detail=1', async () => {
    kernel = await startKernelServer({
      table: new ResourceTable({ ttlMs: 600_000 }),
      now: () => clock,
      log: () => undefined,
    });
    const start = clock;
    expect((await lease(A)).ok).toBe(true);
    clock += 1_000;
    expect((await lease(B)).ok).toBe(false);
    clock += 200;
    expect((await lease(C)).ok).toBe(false);
    // Within the place a plain ask keeps (a few seconds).
    clock += 300;
    // B asks again: its place and its first time stay.
    expect((await lease(B)).ok).toBe(false);

    const detailed = await overview('?detail=1');
    expect(detailed.status).toBe(200);
    expect(detailed.body.resources).toEqual([
      expect.objectContaining({
        resource: R,
        queue: [
          { actorDid: B, position: 0, sinceMs: start + 1_000 },
          { actorDid: C, position: 1, sinceMs: start + 1_200 },
        ],
      }),
    ]);
    // The plain answer is what it was.
    expect((await overview()).body.resources).toEqual([
      expect.objectContaining({
        queue: [
          { actorDid: B, position: 0 },
          { actorDid: C, position: 1 },
        ],
      }),
    ]);
    // Paging and detail together.
    expect((await overview('?limit=1&detail=1')).body.resources).toEqual([
      expect.objectContaining({
        queue: [
          expect.objectContaining({ sinceMs: start + 1_000 }),
          expect.objectContaining({ sinceMs: start + 1_200 }),
        ],
      }),
    ]);
  });

  it('refuses a detail other than 1, naming it', async () => {
    kernel = await startKernelServer({ log: () => undefined });
    const { status, body } = await overview('?detail=yes');
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toMatch(/detail/);
  });
});
