/** Retry timing as parameters, so tests can run it with no real waiting. */
export interface RetryPolicy {
  /** First back-off, before jitter. */
  baseMs: number;
  /** No single back-off is longer than this. */
  capMs: number;
  /** Hard bound on attempts, whatever the time budget says (Infinity: the budget alone). */
  maxAttempts: number;
}

/**
 * The plane client's: the caller's budget alone bounds the attempts (a `run --wait-timeout 30m`
 * retries a dead plane for 30 minutes, as it says), each back-off at most 8 s. A bound of 50
 * attempts gave up after about 4.6 minutes while the CLI said "retrying for 25m 50s more".
 */
export const DEFAULT_RETRY: RetryPolicy = {
  baseMs: 250,
  capMs: 8_000,
  maxAttempts: Number.POSITIVE_INFINITY,
};

/**
 * How long to wait before the next attempt, or undefined to give up: the attempts are spent,
 * the budget is, or the plane's Retry-After asks for longer than is left. A computed back-off
 * that would pass the deadline is cut to it, so the last attempt is made at the deadline and
 * "retrying for N more" holds to the end.
 */
export function nextRetryMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  leftMs: number,
  random: () => number,
): number | undefined {
  if (attempt + 1 >= policy.maxAttempts || leftMs <= 0) return undefined;
  if (retryAfterMs !== undefined) {
    const asked = Math.min(retryAfterMs, policy.capMs * 4);
    return asked > leftMs ? undefined : asked;
  }
  return Math.min(backoffMs(policy, attempt, random), leftMs);
}

/** Capped exponential back-off with "equal jitter": half fixed, half random. */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowWallMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowWallMs);
}
