/** Retry timing as parameters, so tests can run it with no real waiting. */
export interface RetryPolicy {
  /** First back-off, before jitter. */
  baseMs: number;
  /** No single back-off is longer than this. */
  capMs: number;
  /** Hard bound on attempts, whatever the time budget says. */
  maxAttempts: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 250, capMs: 8_000, maxAttempts: 50 };

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
