import type { IncomingMessage, ServerResponse } from 'node:http';
import { verify } from '@octokit/webhooks-methods';
import { errorMessage } from '../errors.js';

/**
 * GitHub's webhook deliveries, received: a bounded body, `X-Hub-Signature-256`
 * checked with the secret, a delivery seen before dropped, 202 at once and the
 * work after (GitHub gives a delivery 10 s; a wait for a lease takes hours).
 */

export interface Delivery {
  id: string;
  event: string;
  payload: unknown;
}

/** A request found again at start (recovery.ts, adopt.ts), with its first delivery's time. */
export interface RecoveredRequest {
  delivery: Delivery;
  /** When GitHub first delivered it (wall clock): its place in the first order, and its wait's start. */
  firstDeliveredAtMs: number;
}

export interface ReceiverOptions {
  secret: string;
  path: string;
  /** Called after the answer was sent; its failures are logged, never answered. */
  onDelivery: (delivery: Delivery) => Promise<void>;
  log: (line: string) => void;
  /** Bigger bodies are refused (GitHub caps payloads at 25 MB; ours are a few KB). */
  maxBodyBytes?: number;
  /** How many delivery ids are remembered for replay detection. */
  rememberDeliveries?: number;
}

const MAX_BODY_BYTES = 1024 * 1024;
const REMEMBER_DELIVERIES = 10_000;
const BODY_TIMEOUT_MS = 10_000;
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;
const EVENT_NAME = /^[a-z_]{1,64}$/;

/** A bounded set: the oldest id is forgotten first. */
export class SeenDeliveries {
  private readonly ids = new Set<string>();
  constructor(private readonly max: number) {}
  /** True when `id` was new (and is now remembered). */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value as string);
    return true;
  }
}

export function createReceiver(options: ReceiverOptions) {
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const seen = new SeenDeliveries(options.rememberDeliveries ?? REMEMBER_DELIVERIES);
  const answer = (res: ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== options.path) {
      return answer(res, 404, {
        ok: false,
        message: 'POST webhook deliveries to the configured path',
      });
    }
    const event = header(req, 'x-github-event');
    const id = header(req, 'x-github-delivery');
    const signature = header(req, 'x-hub-signature-256');
    // Only what the headers say before the signature is checked: escaped, bounded.
    const named = id && DELIVERY_ID.test(id) ? id : '(no valid X-GitHub-Delivery)';
    if (!signature) {
      // Unsigned is unauthenticated, the same answer as a signature that does not match.
      options.log(`delivery ${named}: refused, no X-Hub-Signature-256`);
      return answer(res, 401, { ok: false, message: 'expected X-Hub-Signature-256' });
    }
    const body = await readBounded(req, maxBody);
    if (body === undefined) {
      options.log(`delivery ${named}: refused, body over ${maxBody} bytes or too slow`);
      res.writeHead(413, { connection: 'close' }).end();
      req.destroy();
      return;
    }
    let valid = false;
    try {
      valid =
        /^sha256=[0-9a-f]{64}$/.test(signature) && (await verify(options.secret, body, signature));
    } catch {
      valid = false;
    }
    if (!valid) {
      options.log(`delivery ${named}: refused, bad signature`);
      return answer(res, 401, { ok: false, message: 'signature does not match' });
    }
    if (!event || !EVENT_NAME.test(event) || !id || !DELIVERY_ID.test(id)) {
      return answer(res, 400, {
        ok: false,
        message: 'expected X-GitHub-Event and X-GitHub-Delivery',
      });
    }
    if (!seen.add(id)) {
      options.log(`delivery ${id} (${event}): dropped, seen before`);
      return answer(res, 200, { ok: true, duplicate: true });
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      return answer(res, 400, { ok: false, message: 'the body is not JSON' });
    }
    answer(res, 202, { ok: true });
    setImmediate(() => {
      options.onDelivery({ id, event, payload }).catch((error: unknown) => {
        options.log(`delivery ${id} (${event}): failed: ${errorMessage(error)}`);
      });
    });
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The body as text, or undefined once it is over `max` bytes or slower than the timeout. */
function readBounded(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > max) return resolve(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => done(undefined), BODY_TIMEOUT_MS);
    const done = (value: string | undefined) => {
      clearTimeout(timer);
      req.removeAllListeners('data');
      resolve(value);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) return done(undefined);
      chunks.push(chunk);
    });
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => done(undefined));
  });
}
