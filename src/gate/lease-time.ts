import type { Lease } from '../plane/schema.js';

/**
 * How long a grant or renewal runs, read in the plane's own words (CONTRACT.md part 2):
 * `ttlMs` when it tells one (the bundled kernel does); otherwise `expiresAtMs` against the
 * answer's `Date` header, both on the plane's clock (the hosted plane's contract has only
 * `expiresAtMs`). Never `expiresAtMs` against the runner's wall clock while the plane gave
 * a better word: a runner 10 minutes off would renew 10 minutes late, or never.
 */

/** The hosted plane's documented lease time (CONTRACT.md part 1): no reading goes above it. */
export const DOCUMENTED_LEASE_MS = 30_000;
/**
 * A `Date` header names whole seconds, rounded down: when the plane wrote it, its clock
 * may already have been up to this much later, so that much less of the lease was left.
 */
export const DATE_RESOLUTION_MS = 1_000;
/** Without ttlMs or a Date header, a reading below this is not believed to the letter. */
export const FALLBACK_FLOOR_MS = 1_000;

export type LeaseTimeSource = 'ttl' | 'date' | 'fallback';

export interface LeaseTime {
  /** From when the granting request was sent (runner's monotonic clock), the lease runs at least this long. */
  ms: number;
  source: LeaseTimeSource;
}

export interface LeaseWord {
  /** The answer's `Date` header (epoch ms, whole seconds, the plane's clock), when readable. */
  planeDateMs?: number | undefined;
  /** The runner's wall clock when the request was sent: only for the last-resort reading. */
  wallSentAtMs: number;
}

/**
 * The lease time to pace renewals by, never more than the plane's word allows. With a Date
 * header: `expiresAtMs - Date - 1 s` (the header's uncertainty), counted from when the request
 * was sent, so latency only makes the keeper renew earlier. With neither word: the smaller of
 * the documented 30 s and the expiry against our own wall clock (at least 1 s), and `fallback`
 * says so to the caller, who logs it.
 */
export function leaseTimeOf(lease: Lease, word: LeaseWord): LeaseTime {
  if (lease.ttlMs !== undefined) return { ms: lease.ttlMs, source: 'ttl' };
  if (word.planeDateMs !== undefined) {
    const left = lease.expiresAtMs - word.planeDateMs - DATE_RESOLUTION_MS;
    return { ms: bound(left, 0), source: 'date' };
  }
  const left = lease.expiresAtMs - word.wallSentAtMs;
  return { ms: bound(left, FALLBACK_FLOOR_MS), source: 'fallback' };
}

function bound(ms: number, floor: number): number {
  return Math.min(DOCUMENTED_LEASE_MS, Math.max(floor, Math.floor(ms)));
}

/** The keeper's one log line for a plane that gave no word it could read on the plane's clock. */
export function fallbackNote(time: LeaseTime): string {
  return `The plane's answer tells no ttlMs and no readable Date header: the lease time is read as ${time.ms} ms, the smaller of the documented ${DOCUMENTED_LEASE_MS / 1_000} s and its expiresAtMs against this runner's clock (at least ${FALLBACK_FLOOR_MS / 1_000} s). Renewals are paced by that; a runner clock far ahead of the plane's renews often, one far behind may renew too late for leases shorter than 30 s.`;
}
