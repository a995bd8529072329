import { HttpError } from './errors.js';

/**
 * A failed request read as an HttpError whose message is ours: cancelled by the caller,
 * timed out, or the network's failure named by its code, never by Node's words.
 */

/** `timeout`: the request's own deadline signal; `signal`: the caller's. */
export function requestFailure(
  error: unknown,
  sent: { call: string; signal: AbortSignal | undefined; timeout: AbortSignal; timeoutMs: number },
): HttpError {
  const { call, timeoutMs } = sent;
  if (error instanceof HttpError) return error;
  if (sent.signal?.aborted)
    return new HttpError(`${call}: cancelled`, { failure: 'cancelled', call });
  if (sent.timeout.aborted) {
    return new HttpError(`${call}: no answer within ${timeoutMs} ms`, {
      failure: 'timeout',
      call,
      cause: error,
    });
  }
  if (codeOf(error) === 'ETIMEDOUT') {
    // The system gave up connecting before our own connect deadline.
    return new HttpError(`${call}: connection timed out (ETIMEDOUT)`, {
      failure: 'timeout',
      call,
      cause: error,
    });
  }
  return new HttpError(`${call}: ${describeNetworkError(error)}`, {
    failure: 'network',
    call,
    cause: error,
  });
}

/**
 * What failed, in our words, by the error's code: Node's own messages are not passed on,
 * since some carry the URL (with its credentials and query) or the proxy's.
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
  if (code === 'ECONNRESET' || code === 'EPIPE')
    return `connection closed by the other side (${code})`;
  // Node's proxy support gives this code when the proxy answered its CONNECT with anything but
  // 2xx (a 407, a 502) and when it never answered within the agent's socket timeout: either
  // way, a tunnel the proxy did not open.
  if (code === 'ERR_PROXY_TUNNEL') return `the proxy did not open the tunnel (${code})`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `host not reachable (${code})`;
  // llhttp's codes: what came back is not HTTP/1.1 (not a web server, or a broken one).
  if (code.startsWith('HPE_')) return `the answer is not HTTP (${code})`;
  return code ? `connection failed (${code})` : 'connection failed';
}

/** The first string `code` of the error or of what it wraps. */
function codeOf(error: unknown): string {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code)) return code;
  }
  return '';
}
