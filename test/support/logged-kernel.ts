import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LeaseKernel, type KernelEvent } from '../../src/kernel/core.js';
import { createKernelHandler } from '../../src/kernel/server.js';
import { memoryStore } from '../../src/kernel/store.js';

/** The real kernel over HTTP on 127.0.0.1:0, with a log of every request it served. */
export async function startLoggedKernel(options: { ttlMs?: number; adminKey?: string } = {}) {
  const kernel = new LeaseKernel({ ttlMs: options.ttlMs ?? 30_000 });
  const events: KernelEvent[] = [];
  const handler = createKernelHandler({
    kernel,
    store: memoryStore(),
    adminKey: options.adminKey,
    onEvents: (batch) => events.push(...batch),
  });
  const requests: Array<{ method: string; path: string; atMs: number }> = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', atMs: Date.now() });
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    kernel,
    events,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
