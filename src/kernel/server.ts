import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  DID_FORM,
  LEASE_PATH,
  RELEASE_PATH,
  RESOURCE_FORM,
  RESOURCE_PATTERN,
  LEDGER_PATHS,
  REVOKE_PATH,
  isDid,
} from '../plane/schema.js';
import type { KernelEvent, LeaseKernel } from './core.js';
import type { KernelStore } from './store.js';
import type { Ledger } from '../ledger/ledger.js';
import { createConsole } from '../console/serve.js';

export const BODY_LIMIT_BYTES = 64 * 1024;
export const RESOURCES_PATH = '/api/v1/kernel/resources';

export interface KernelServerOptions {
  kernel: LeaseKernel;
  store: KernelStore;
  /** Every call must carry this Bearer key when set. */
  key?: string | undefined;
  /** The only key that may revoke; revoking is off without one. */
  adminKey?: string | undefined;
  /** Epoch-aligned monotonic milliseconds. */
  now?: () => number;
  /** Told of every grant, release, lapse and revocation, in order. */
  onEvents?: (events: KernelEvent[]) => void;
  /** Where every grant, release, lapse and revocation is sealed; serves the ledger routes. */
  ledger?: Ledger | undefined;
}

/** A user's mistake: answered with a 4xx and `{ ok: false, reason, message }`. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const resource = z.string().regex(RESOURCE_PATTERN, `expected ${RESOURCE_FORM}`);
const actorDid = z.string().refine(isDid, `expected ${DID_FORM}`);
const leaseBody = z.object({ resource, actorDid });
const revokeBody = z.object({
  resource,
  reason: z.string().max(1_000).default('revoked by an operator'),
});

/** Epoch milliseconds that never go backwards, whatever the wall clock does. */
export function epochMonotonic(): () => number {
  const wallStart = Date.now();
  const perfStart = performance.now();
  return () => Math.round(wallStart + performance.now() - perfStart);
}

export function createKernelHandler(options: KernelServerOptions) {
  const { kernel, store } = options;
  const now = options.now ?? epochMonotonic();
  let alarm: NodeJS.Timeout | undefined;

  /**
   * Saves and reports after a change (a grant, renewal, release, lapse or
   * revocation), then re-arms the lapse alarm. A refusal or a status read that
   * changed nothing writes nothing: waiters poll, and the store syncs to disk.
   */
  const commit = (changed = false) => {
    const events = kernel.drainEvents();
    for (const { atMs, kind, resource: r, actorDid: a, leaseId, fence, reason } of events) {
      options.ledger?.append({
        atMs,
        kind,
        resource: r,
        actorDid: a,
        leaseId,
        fence,
        ...(reason ? { reason } : {}),
      });
    }
    if (!changed && events.length === 0) return;
    store.save(kernel.snapshot());
    if (events.length) options.onEvents?.(events);
    if (alarm) clearTimeout(alarm);
    const next = kernel.nextExpiry();
    if (next !== undefined) {
      alarm = setTimeout(
        () => {
          kernel.reclaim(now());
          commit(true);
        },
        Math.max(0, next - now()) + 1,
      ).unref();
    }
  };

  const ledger = () => {
    if (!options.ledger) throw new HttpError(404, 'no_ledger', 'This kernel keeps no ledger.');
    return options.ledger;
  };
  const query = (req: IncomingMessage) => new URL(req.url ?? '', 'http://kernel').searchParams;
  const index = (value: string | null, fallback: number, name: string) => {
    if (value === null) return fallback;
    if (!/^\d+$/.test(value))
      throw new HttpError(400, 'bad_request', `${name}: expected a whole number`);
    return Number(value);
  };

  const routes: Record<string, (body: unknown, req: IncomingMessage) => [number, unknown]> = {
    [`POST ${LEASE_PATH}`]: (body) => {
      const { resource: r, actorDid: a } = parse(leaseBody, body);
      const reply = kernel.lease(r, a, now());
      commit(reply.ok);
      if (reply.ok)
        return [200, { ok: true, lease: publicLease(reply.lease), renewed: reply.renewed }];
      return [409, reply];
    },
    [`POST ${RELEASE_PATH}`]: (body) => {
      const { resource: r, actorDid: a } = parse(leaseBody, body);
      const reply = kernel.release(r, a, now());
      commit(reply.released);
      return [200, reply];
    },
    [`POST ${REVOKE_PATH}`]: (body, req) => {
      if (!options.adminKey) {
        throw new HttpError(
          403,
          'revoke_disabled',
          'Revoking needs the kernel to be started with LEASE_GATE_ADMIN_KEY.',
        );
      }
      if (!bearerMatches(req, options.adminKey)) {
        throw new HttpError(
          403,
          'forbidden',
          'Revoking needs the admin key (LEASE_GATE_ADMIN_KEY) as the Bearer token.',
        );
      }
      const { resource: r, reason } = parse(revokeBody, body);
      const ended = kernel.revoke(r, reason, now());
      commit(Boolean(ended));
      return [
        200,
        {
          ok: true,
          revoked: Boolean(ended),
          leaseId: ended?.id ?? null,
          holder: ended?.holder ?? null,
        },
      ];
    },
    // console branch (minimal; the kernel rewrite supersedes it): the console's read view.
    [`GET ${RESOURCES_PATH}`]: () => {
      const at = now();
      const resources = kernel.overview(at).map(({ lease, ...rest }) => ({
        ...rest,
        lease: lease && { ...publicLease(lease), grantedAtMs: lease.grantedAtMs },
      }));
      commit();
      return [200, { ok: true, nowMs: at, resources }];
    },
    [`GET ${LEDGER_PATHS.checkpoint}`]: () => [200, ledger().checkpoint()],
    [`GET ${LEDGER_PATHS.publicKey}`]: () => [
      200,
      ledger().publicKey.export({ type: 'spki', format: 'pem' }),
    ],
    [`GET ${LEDGER_PATHS.bundle}`]: (_body, req) => {
      const params = query(req);
      const from = index(params.get('from'), 0, 'from');
      const to = index(params.get('to'), ledger().size, 'to');
      if (from > to || to > ledger().size) {
        throw new HttpError(
          400,
          'bad_request',
          `from/to: expected 0 ≤ from ≤ to ≤ ${ledger().size}`,
        );
      }
      return [200, ledger().bundle(from, to)];
    },
    [`GET ${LEASE_PATH}`]: (_body, req) => {
      const r = query(req).get('resource') ?? '';
      parse(z.object({ resource }), { resource: r });
      const lease = kernel.status(r, now());
      commit();
      return [200, { ok: true, lease: lease && publicLease(lease) }];
    },
  };

  const serveConsole = createConsole();
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const path = (req.url ?? '').split('?')[0];
      const route = routes[`${req.method} ${path}`];
      if (!route && serveConsole(req, res)) return; // console branch: the hook
      if (!route) {
        const known = Object.keys(routes).some((r) => r.endsWith(` ${path}`));
        throw known
          ? new HttpError(405, 'method_not_allowed', `${req.method} is not served on ${path}.`)
          : new HttpError(404, 'not_found', `No route ${req.method} ${path}.`);
      }
      // console branch (minimal; the kernel rewrite supersedes it): no cross-origin changes.
      if (req.method === 'POST' && isCrossOrigin(req)) {
        req.resume();
        throw new HttpError(
          403,
          'cross_origin',
          'State-changing calls are refused from another origin (Origin / Sec-Fetch-Site).',
        );
      }
      const revoking = path === REVOKE_PATH;
      if (options.key && !revoking && !bearerMatches(req, options.key)) {
        throw new HttpError(
          401,
          'unauthorized',
          'This kernel needs its key (LEASE_GATE_KERNEL_KEY) as a Bearer token.',
        );
      }
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const [status, answer] = route(body, req);
      send(res, status, answer);
    } catch (error) {
      if (error instanceof HttpError) {
        send(res, error.status, { ok: false, reason: error.reason, message: error.message });
      } else {
        send(res, 500, {
          ok: false,
          reason: 'internal',
          message: 'The kernel failed; see its log.',
        });
        console.error(error);
      }
    }
  };
  return Object.assign(handler, { commit });
}

export interface RunningKernel {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startKernelServer(
  options: KernelServerOptions & { host?: string; port?: number },
): Promise<RunningKernel> {
  const handler = createKernelHandler(options);
  const server = createServer((req, res) => void handler(req, res));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  handler.commit(true);
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  throw new HttpError(400, 'bad_request', `${field}: ${issue?.message ?? 'invalid'}`);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    req.resume();
    throw new HttpError(
      415,
      'unsupported_media_type',
      'Send the body as Content-Type: application/json.',
    );
  }
  const text = await readLimited(req);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'bad_json', 'The body is not valid JSON.');
  }
}

/** Reads the body up to the limit; past it, drains the rest so the answer can still be sent. */
function readLimited(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (size > BODY_LIMIT_BYTES) {
        reject(
          new HttpError(413, 'payload_too_large', `The body is over ${BODY_LIMIT_BYTES} bytes.`),
        );
      } else {
        resolve(Buffer.concat(chunks).toString('utf8'));
      }
    });
  });
}

/** JSON, or plain text for a string (the checkpoint note, the public key). */
function send(res: ServerResponse, status: number, body: unknown): void {
  const plain = typeof body === 'string';
  const text = plain ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': plain ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function publicLease(lease: {
  id: string;
  resource: string;
  holder: string;
  expiresAtMs: number;
  fence: number;
}) {
  const { id, resource: r, holder, expiresAtMs, fence } = lease;
  return { id, resource: r, holder, expiresAtMs, fence };
}

/** A browser call from a page of another origin (the kernel's own console is same-origin). */
function isCrossOrigin(req: IncomingMessage): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = req.headers.origin;
  return origin !== undefined && origin !== `http://${req.headers.host ?? ''}`;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares in constant time (over digests, so lengths do not leak either). */
export function bearerMatches(req: IncomingMessage, key: string): boolean {
  const header = req.headers.authorization ?? '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : '';
  return timingSafeEqual(digest(token), digest(key)) && token.length > 0;
}
