import { CancelledError, PlaneUnavailableError, TransientError } from './errors.js';
import { nextRetryMs, type RetryPolicy } from './retry.js';
import type { Clock, Sleep } from './time.js';

/**
 * The plane client's retries: a transient failure (TransientError) is asked again after the
 * policy's back-off until the call's budget is spent, then named PlaneUnavailableError; any
 * other failure goes straight through. The clock and sleep are injected so tests never wait.
 */

export interface RetryEvent {
  error: string;
  attempt: number;
  /** The plane's HTTP status when it answered (5xx, 429, 408); undefined when it could not be reached. */
  status?: number | undefined;
  /** How much longer transient failures will be retried. */
  retryForMs: number;
}

/** Transient failures are retried this long unless the caller says otherwise. */
export const DEFAULT_RETRY_WINDOW_MS = 30_000;

export interface Retrying {
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  policy: RetryPolicy;
  /** Told before each retry of a transient failure (for a "retrying" line). */
  onRetry?: ((event: RetryEvent) => void) | undefined;
}

export interface RetryCall {
  signal?: AbortSignal | undefined;
  /** Monotonic time after which transient failures are no longer retried. */
  retryUntilMs?: number | undefined;
}

export async function withRetries<T>(
  attempt: () => Promise<T>,
  call: RetryCall,
  how: Retrying,
): Promise<T> {
  const { clock, sleep, random, policy } = how;
  const first = clock.now();
  const until = call.retryUntilMs ?? first + DEFAULT_RETRY_WINDOW_MS;
  for (let n = 0; ; n += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof TransientError)) throw error;
      const wait = nextRetryMs(policy, n, error.retryAfterMs, until - clock.now(), random);
      if (wait === undefined) {
        throw new PlaneUnavailableError(
          `${error.message} — still failing after ${n + 1} attempt(s) over ${Math.round((clock.now() - first) / 1_000)} s; ${error.failing} looks unavailable`,
          { call: error.call, status: error.status, cause: error },
        );
      }
      how.onRetry?.({
        error: error.message,
        attempt: n + 1,
        status: error.status,
        retryForMs: Math.max(0, Math.round(until - clock.now())),
      });
      await sleep(wait, call.signal);
      if (call.signal?.aborted) throw new CancelledError();
    }
  }
}
