import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the plane saw it. */
export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  atMs: number;
}

/** What the plane answers; `destroy` drops the connection instead. */
export interface Reply {
  status?: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  destroy?: boolean;
}

export type Script = (request: Seen, index: number) => Reply | Promise<Reply>;

export interface ScriptedPlane {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** A plane on 127.0.0.1:0 (or `host`) that answers as the test script says, and logs every request. */
export async function startScriptedPlane(
  script: Script,
  host = '127.0.0.1',
): Promise<ScriptedPlane> {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the raw text
    }
    const request = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      atMs: Date.now(),
    };
    seen.push(request);
    const reply = await script(request, seen.length - 1);
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.raw ?? JSON.stringify(reply.body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const granted = (holder: string, id = 'lease_1', extra: Record<string, unknown> = {}) => ({
  ok: true,
  lease: {
    id,
    resource: 'lock:deploy/production',
    holder,
    expiresAtMs: Date.now() + 30_000,
    ...extra,
  },
});

export const held = (holder: string, waitMs: number) => ({
  ok: false,
  reason: 'lease_held',
  holder,
  stampede: { waitMs },
});

export const released = (...ids: string[]) => ({
  ok: true,
  released: ids.length > 0,
  releasedIds: ids,
});

export const isLease = (r: Seen) => r.path.endsWith('/coordination/lease');
export const isRelease = (r: Seen) => r.path.endsWith('/coordination/release');

/**
 * A plane that holds the resource in `holder`'s name for `heldAsks` asks, then grants it
 * (`lease_e2e`, fence 3); releases answer `release`.
 */
export function holdThenGrant(
  holder: string,
  options: { heldAsks?: number; waitMs?: number; lease?: Reply; release?: Reply } = {},
): Script {
  let asks = 0;
  return (req) => {
    const actor = (req.body as { actorDid: string }).actorDid;
    if (isRelease(req)) return options.release ?? { body: released('lease_e2e') };
    asks += 1;
    if (asks <= (options.heldAsks ?? 0))
      return { status: 423, body: held(holder, options.waitMs ?? 150) };
    return options.lease ?? { body: granted(actor, 'lease_e2e', { fence: 3 }) };
  };
}
