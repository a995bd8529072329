import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { ResourceTable, type KernelEvent } from '../../src/kernel/rules/core.js';
import { createKernelHandler } from '../../src/kernel/http/server.js';
import { LEASE_PATH, RELEASE_PATH, REVOKE_PATH } from '../../src/plane/schema.js';
import { postJson } from './http.js';

/**
 * The real kernel over HTTP on 127.0.0.1:0, with a log of every request it
 * served and of every change of holder (renewals left out). `kernel` acts on
 * it as an operator's hand would: over HTTP too, through a second listener on
 * the same kernel whose requests are not logged (so `requests` stays the
 * client's under test). Revoking uses the admin key given, or one of its own.
 */
export async function startLoggedKernel(options: { ttlMs?: number; adminKey?: string } = {}) {
  const adminKey = options.adminKey ?? randomBytes(16).toString('hex');
  const events: KernelEvent[] = [];
  const handler = createKernelHandler({
    table: new ResourceTable({ ttlMs: options.ttlMs ?? 30_000 }),
    adminKey,
    onEvents: (batch) => events.push(...batch.filter((e) => e.kind !== 'renew')),
  });
  await handler.opened;
  const requests: Array<{ method: string; path: string; atMs: number }> = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', atMs: Date.now() });
    void handler(req, res);
  });
  const operator = createServer((req, res) => void handler(req, res));
  const url = await listen(server);
  const operatorUrl = await listen(operator);
  const kernel = {
    /** Asks once (no wait); the kernel's answer body. */
    lease: async (resource: string, actorDid: string) =>
      (await postJson(operatorUrl, LEASE_PATH, { resource, actorDid })).body,
    release: async (resource: string, actorDid: string) =>
      (await postJson(operatorUrl, RELEASE_PATH, { resource, actorDid })).body,
    revoke: async (resource: string, reason: string) =>
      (
        await postJson(
          operatorUrl,
          REVOKE_PATH,
          { resource, reason },
          { authorization: `Bearer ${adminKey}` },
        )
      ).body,
    /** The lease as GET answers it, or null. */
    status: async (resource: string) => {
      const res = await request(
        `${operatorUrl}${LEASE_PATH}?resource=${encodeURIComponent(resource)}`,
      );
      const body = (await res.body.json()) as { lease: { holder: string; id: string } | null };
      return body.lease;
    },
  };
  return {
    url,
    kernel,
    events,
    requests,
    close: async () => {
      await Promise.all([closed(server), closed(operator)]);
    },
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

const closed = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
