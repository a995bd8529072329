import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LeaseKernel, type KernelEvent } from '../../src/kernel/core.js';
import { createKernelHandler } from '../../src/kernel/server.js';

/**
 * The real kernel over HTTP on 127.0.0.1:0, with a log of every request it
 * served and of every change of holder (renewals left out). `kernel` acts on
 * the same table in-process, as an operator's hand would, and is logged too.
 */
export async function startLoggedKernel(options: { ttlMs?: number; adminKey?: string } = {}) {
  const inner = new LeaseKernel({ ttlMs: options.ttlMs ?? 30_000 });
  const events: KernelEvent[] = [];
  const handler = createKernelHandler({
    kernel: inner,
    adminKey: options.adminKey,
    onEvents: (batch) => events.push(...batch.filter((e) => e.kind !== 'renew')),
  });
  await handler.opened;
  const logged =
    <A extends unknown[], R>(call: (...args: A) => R) =>
    (...args: A): R => {
      const result = call(...args);
      events.push(...inner.drainEvents());
      return result;
    };
  const kernel = {
    lease: logged(inner.lease.bind(inner)),
    release: logged(inner.release.bind(inner)),
    revoke: logged(inner.revoke.bind(inner)),
    status: logged(inner.status.bind(inner)),
  };
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
