import type { Dispatcher } from 'undici';
import { createDispatchers } from './dispatchers.js';
import { HttpError } from './errors.js';
import { requestFailure } from './network-error.js';
import { urlForDisplay } from './url-display.js';

/**
 * The one HTTP client of lease-gate (plane, ledger): undici with connect,
 * headers and body timeouts, the proxy settings of the environment
 * (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; loopback never goes through a proxy
 * unless a test asks, whatever NO_PROXY says), bounded answers, and close() so nothing keeps a step alive.
 */

export interface HttpClientOptions {
  /** Where the proxy variables are read; process.env by default. */
  env?: NodeJS.ProcessEnv;
  connectTimeoutMs?: number;
  /** Per request, until the answer's headers; a request may ask for longer. */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Send loopback requests through the proxy too (tests of the proxy path). */
  proxyLoopback?: boolean;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  /** Bytes already encoded (a signed body) are sent as they are. */
  body?: string | Uint8Array | undefined;
  signal?: AbortSignal | undefined;
  /** Overrides the client's headers timeout for this request (a held blocking acquire). */
  timeoutMs?: number | undefined;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface HttpClient {
  send(request: HttpRequest): Promise<HttpAnswer>;
  /** A GET that must answer 200; its body as text. */
  getText(url: string, headers?: Record<string, string>, signal?: AbortSignal): Promise<string>;
  /** Closes every connection; later calls fail. Idempotent. */
  close(): Promise<void>;
}

/** Bodies past this are not ours to read: the plane's answers are small. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const DEFAULTS = { connect: 5_000, headers: 10_000, body: 10_000 };

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const headersTimeout = options.headersTimeoutMs ?? DEFAULTS.headers;
  const dispatchers = createDispatchers({
    env: options.env ?? process.env,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connect,
    headersTimeoutMs: headersTimeout,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULTS.body,
    proxyLoopback: options.proxyLoopback ?? false,
  });
  let closed = false;

  async function send(req: HttpRequest): Promise<HttpAnswer> {
    // The URL as shown: its credentials and query stay out of every message (url-display.ts).
    const call = `[${req.method}] "${urlForDisplay(req.url)}"`;
    if (closed)
      throw new HttpError(`${call}: the HTTP client is closed`, {
        failure: 'cancelled',
        call,
      });
    const timeoutMs = req.timeoutMs ?? headersTimeout;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    try {
      const url = new URL(req.url);
      // The dispatcher's own request(): undici's top-level one would load all of undici.
      const answer = await dispatchers.for(url).request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: req.headers ?? {},
        ...(req.body === undefined ? {} : { body: req.body }),
        signal,
        headersTimeout: Math.max(headersTimeout, timeoutMs),
      });
      const text = await readBounded(answer.body, call);
      return { status: answer.statusCode, headers: answer.headers, text };
    } catch (error) {
      throw requestFailure(error, { call, signal: req.signal, timeout, timeoutMs });
    }
  }

  return {
    send,
    async getText(url, headers = {}, signal) {
      const answer = await send({ method: 'GET', url, headers, signal });
      if (answer.status !== 200) {
        const call = `[GET] "${urlForDisplay(url)}"`;
        throw new HttpError(`${call}: ${answer.status} ${answer.text.slice(0, 200)}`, {
          failure: 'network',
          call,
        });
      }
      return answer.text;
    },
    async close() {
      if (closed) return;
      closed = true;
      await dispatchers.destroy();
    },
  };
}

async function readBounded(body: Dispatcher.ResponseData['body'], call: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      throw new HttpError(`${call}: answer larger than ${MAX_ANSWER_BYTES} bytes`, {
        failure: 'too-large',
        call,
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
