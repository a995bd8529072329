import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The bench's own servers, each run in a process of its own (`role echo`,
 * `role lock`) so that the clients' work never shares an event loop with the
 * server being measured.
 */

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A node:http server on 127.0.0.1 and a free port that reads each body (up to 64 KB) first. */
export function listen(handle: Handler): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 64 * 1024) chunks.push(chunk);
    });
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** How a role process tells the bench where it listens, and stops on SIGTERM. */
export function announce(server: Server): void {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop).once('SIGINT', stop);
}

/** The ceiling of Node's HTTP stack here: parse the JSON body, answer it back. */
export const echoHandler: Handler = (_req, res, body) => {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body);
  } catch {
    return reply(res, 400, { ok: false, reason: 'bad_json' });
  }
  reply(res, 200, { ok: true, echo: parsed });
};

interface LockState {
  holder: string;
  id: string;
  expiresAtMs: number;
}

/**
 * A lock as people build one on a key-value store: take it if free, else come
 * back later. `fifo` serves waiters in the order they first asked, as a lock
 * action that waits for the runs queued before it does; without it the first
 * to ask after the lock frees takes it. The answer's `waitMs` is the time left
 * on the holder's lease (all a TTL-only lock knows); pollers ignore it.
 */
export function lockHandler(ttlMs: number, fifo: boolean, now = Date.now): Handler {
  const locks = new Map<string, LockState>();
  const queues = new Map<string, string[]>();
  let ids = 0;
  return (req, res, body) => {
    let resource: string;
    let actorDid: string;
    try {
      ({ resource, actorDid } = JSON.parse(body) as { resource: string; actorDid: string });
    } catch {
      return reply(res, 400, { ok: false, reason: 'bad_json' });
    }
    const t = now();
    // The plane's own clock in its Date header, as a real server's: a client reads the lease
    // time against it (and a fake clock in a test must not meet the machine's real date).
    res.setHeader('date', new Date(t).toUTCString());
    const held = locks.get(resource);
    const live = held && held.expiresAtMs > t ? held : undefined;
    const queue = queues.get(resource) ?? [];
    if (req.url?.endsWith('/release')) {
      queues.set(
        resource,
        queue.filter((a) => a !== actorDid),
      );
      const mine = live?.holder === actorDid;
      if (mine) locks.delete(resource);
      return reply(res, 200, { ok: true, released: mine, releasedIds: mine ? [live.id] : [] });
    }
    if (live?.holder === actorDid) {
      live.expiresAtMs = t + ttlMs;
      return reply(res, 200, { ok: true, lease: leaseOf(resource, live), renewed: true });
    }
    if (fifo && !queue.includes(actorDid)) queues.set(resource, [...queue, actorDid]);
    const head = queues.get(resource)?.[0];
    if (!live && (!fifo || head === actorDid)) {
      queues.set(resource, queue.slice(1));
      const lock = { holder: actorDid, id: `lease_${(ids += 1)}`, expiresAtMs: t + ttlMs };
      locks.set(resource, lock);
      return reply(res, 200, { ok: true, lease: leaseOf(resource, lock), renewed: false });
    }
    reply(res, 409, {
      ok: false,
      reason: 'lease_held',
      holder: live?.holder ?? head ?? actorDid,
      stampede: { waitMs: Math.max(1, Math.round((live?.expiresAtMs ?? t) - t)) },
    });
  };
}

function leaseOf(resource: string, lock: LockState) {
  return { id: lock.id, resource, holder: lock.holder, expiresAtMs: lock.expiresAtMs };
}
