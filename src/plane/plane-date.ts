import { MAX_EPOCH_MS } from './schema.js';

/**
 * An answer's `Date` header (RFC 9110: the origin's clock when it made the answer, whole
 * seconds) as epoch milliseconds; undefined when absent or unreadable. It is the only word
 * on the plane's clock besides `expiresAtMs`, so a plane that tells no `ttlMs` is read by it.
 */
export function planeDateOf(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.length > 64) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) && ms > 0 && ms <= MAX_EPOCH_MS ? ms : undefined;
}
