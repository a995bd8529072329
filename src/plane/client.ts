import { createHttpClient, type HttpClient } from '../http/client.js';
import { createCaller } from './caller.js';
import { leaseCalls, type LeaseCalls } from './lease-calls.js';
import { operatorCalls, type OperatorCalls } from './operator-calls.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import type { RetryEvent } from './retry-loop.js';
import { createSender, FRESH_TOKEN } from './send.js';
import { realSleep, systemClock, type Clock, type Sleep } from './time.js';

/**
 * The plane client. The factory only assembles: the sender (send.ts: one request, its
 * status read as a typed failure), the retries (retry-loop.ts), and the calls of each
 * route (lease-calls.ts, operator-calls.ts) with their answers' readers (answers.ts).
 */

export type { CallOptions } from './send.js';
export { DEFAULT_RETRY_WINDOW_MS, type RetryEvent } from './retry-loop.js';

export interface PlaneClientOptions {
  /** The plane's origin, already checked by parsePlaneUrl. */
  apiUrl: string;
  /** Sent as a Bearer token; omitted when empty (a keyless local kernel). */
  key?: string | undefined;
  /** Asked before each call for the Bearer token (a fresh OIDC ID token); used instead of `key`. */
  bearer?: (() => Promise<string>) | undefined;
  requestTimeoutMs?: number;
  retry?: RetryPolicy;
  clock?: Clock;
  sleep?: Sleep;
  random?: () => number;
  /** Shared HTTP client; without one the plane client makes its own and close() closes it. */
  http?: HttpClient;
  /** Told before each retry of a transient failure (for a "retrying" line). */
  onRetry?: (event: RetryEvent) => void;
  /** Where the HTTP client reads proxy settings, when it makes its own. */
  env?: NodeJS.ProcessEnv;
  /** Wall clock, only to refuse a grant whose expiry is absurd; Date.now by default. */
  wallNow?: () => number;
  /** Where this face takes the key from, for a refusal's message ("the 'key' input or LEASE_GATE_KEY"). */
  keyHint?: string | undefined;
}

export interface PlaneClient extends LeaseCalls, OperatorCalls {
  readonly apiUrl: string;
  /** Per request; a `Prefer: wait` must stay below it. */
  readonly requestTimeoutMs: number;
  close(): Promise<void>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export function createPlaneClient(options: PlaneClientOptions): PlaneClient {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const ownHttp = !options.http;
  const http =
    options.http ??
    createHttpClient({ headersTimeoutMs: timeoutMs, ...(options.env ? { env: options.env } : {}) });
  const send = createSender({ ...options, http, timeoutMs });
  const key = options.bearer ? FRESH_TOKEN : options.key || undefined;
  const caller = createCaller(options.apiUrl, send, key, {
    clock,
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
    policy: options.retry ?? DEFAULT_RETRY,
    onRetry: options.onRetry,
  });
  return {
    apiUrl: options.apiUrl,
    requestTimeoutMs: timeoutMs,
    ...leaseCalls(caller, clock, options.wallNow ?? Date.now),
    ...operatorCalls(caller),
    async close() {
      if (ownHttp) await http.close();
    },
  };
}
