import { createAgents } from './agents.js';
import { HttpError } from './errors.js';
import { exchange } from './exchange.js';
import { requestFailure } from './network-error.js';
import { urlForDisplay } from './url-display.js';

/**
 * The one HTTP client of lease-gate (plane, ledger, GitHub, OIDC): Node's own node:http and
 * node:https agents (agents.ts) with connect, headers and body timeouts, the proxy settings of
 * the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; loopback never goes through a proxy
 * unless a test asks, whatever NO_PROXY says), bounded answers, and close() so nothing keeps
 * a step alive. No HTTP library: undici's start-up cost was the largest on the action's path
 * (docs/performance.md, "Start-up").
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
  const limits = {
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connect,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULTS.body,
    maxBytes: MAX_ANSWER_BYTES,
  };
  const agents = createAgents({
    env: options.env ?? process.env,
    proxyLoopback: options.proxyLoopback ?? false,
  });
  // Aborted by close(): requests still under way end as cancelled, not as a reset socket.
  const closing = new AbortController();

  async function send(req: HttpRequest): Promise<HttpAnswer> {
    // The URL as shown: its credentials and query stay out of every message (url-display.ts).
    const call = `[${req.method}] "${urlForDisplay(req.url)}"`;
    if (closing.signal.aborted)
      throw new HttpError(`${call}: the HTTP client is closed`, {
        failure: 'cancelled',
        call,
      });
    // Until the answer's headers and through its body, as before: one deadline for the whole.
    const timeoutMs = req.timeoutMs ?? headersTimeout;
    const timeout = AbortSignal.timeout(timeoutMs);
    const cancel = req.signal ? AbortSignal.any([req.signal, closing.signal]) : closing.signal;
    try {
      const url = new URL(req.url);
      const answer = await exchange({
        ...limits,
        method: req.method,
        url,
        headers: req.headers ?? {},
        body: req.body,
        agent: await agents.for(url, call),
        signal: AbortSignal.any([cancel, timeout]),
        call,
      });
      return { status: answer.status, headers: answer.headers, text: answer.text };
    } catch (error) {
      throw requestFailure(error, { call, signal: cancel, timeout, timeoutMs });
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
    close() {
      if (!closing.signal.aborted) {
        closing.abort();
        agents.destroy();
      }
      return Promise.resolve();
    },
  };
}
