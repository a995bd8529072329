import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { HttpError } from './errors.js';
import { isLoopbackHost } from './loopback.js';
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

function proxyEnv(env: NodeJS.ProcessEnv) {
  const pick = (name: string) => env[name.toLowerCase()] ?? env[name] ?? '';
  return {
    httpProxy: pick('HTTP_PROXY'),
    httpsProxy: pick('HTTPS_PROXY'),
    noProxy: pick('NO_PROXY'),
  };
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const env = options.env ?? process.env;
  const headersTimeout = options.headersTimeoutMs ?? DEFAULTS.headers;
  const agentOptions = {
    connect: { timeout: options.connectTimeoutMs ?? DEFAULTS.connect },
    headersTimeout,
    bodyTimeout: options.bodyTimeoutMs ?? DEFAULTS.body,
    keepAliveTimeout: 4_000,
  };
  const proxies = proxyEnv(env);
  const direct: Dispatcher = new Agent(agentOptions);
  // Loopback is decided here, by the same test that allows plain http: to it, and not
  // left to NO_PROXY matching, which missed [::1] and 127.0.0.2 (the key crossed the proxy).
  const proxied: Dispatcher | undefined =
    proxies.httpProxy || proxies.httpsProxy
      ? new EnvHttpProxyAgent({
          ...agentOptions,
          httpProxy: proxies.httpProxy || undefined,
          httpsProxy: proxies.httpsProxy || proxies.httpProxy || undefined,
          noProxy: proxies.noProxy,
        } as EnvHttpProxyAgent.Options)
      : undefined;
  const dispatcherFor = (url: URL): Dispatcher =>
    proxied && (options.proxyLoopback || !isLoopbackHost(url.hostname)) ? proxied : direct;
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
      const answer = await dispatcherFor(url).request({
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
      if (error instanceof HttpError) throw error;
      if (req.signal?.aborted)
        throw new HttpError(`${call}: cancelled`, { failure: 'cancelled', call });
      if (timeout.aborted || isTimeout(error)) {
        throw new HttpError(`${call}: no answer within ${timeoutMs} ms`, {
          failure: 'timeout',
          call,
          cause: error,
        });
      }
      throw new HttpError(`${call}: ${describeNetworkError(error)}`, {
        failure: 'network',
        call,
        cause: error,
      });
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
      await Promise.all([direct.destroy(), proxied?.destroy()]);
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

function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  );
}

/**
 * What failed, in our words, by the error's code: undici's and Node's own messages are not
 * passed on, since some carry the URL (with its credentials and query) or the proxy's.
 */
function describeNetworkError(error: unknown): string {
  const code = codeOf(error);
  if (code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return `host name not resolved (${code})`;
  if (
    /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH)/.test(
      code,
    )
  )
    return `TLS handshake failed (${code})`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
    return `connection closed by the other side (${code})`;
  return code ? `connection failed (${code})` : 'connection failed';
}

/** The first string `code` of the error or of what it wraps (undici wraps the socket's error). */
function codeOf(error: unknown): string {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code)) return code;
  }
  return '';
}
