/**
 * The rules' clock constants and the typical hold, in a module of their own so `decide`
 * (rules.ts), `lease()` (lease.ts), the ending of a hold (ending.ts) and `replay`
 * (replay.ts) read one set of numbers without importing each other.
 */

export const DEFAULT_TTL_MS = 30_000;
/** The agent next in line polls this often, so a handover costs one short sleep. */
export const NEXT_IN_LINE_WAIT_MS = 500;
/** A waiter is dropped when it has not asked again this long after its told wait. */
export const WAITER_GRACE_MS = 2_000;
/** A freed resource is kept for the next in line at most this long, whatever others were told. */
export const MAX_RESERVATION_MS = 2_500;
/** What a lock-delay adds to one renewal interval: the renewal's round trip and a prompt stop. */
export const LOCK_DELAY_GRACE_MS = 2_000;

/**
 * After a revoke, the resource goes to another agent only once the revoked
 * holder gave it back or this long has passed (Chubby's lock-delay). The
 * keeper and `run` renew at a third of the lease's time left, so a holder that
 * learns of the revoke only from its next renewal learns within `ttlMs / 3`;
 * the grace covers that renewal's answer and its command stopping on SIGTERM.
 */
export const defaultLockDelayMs = (ttlMs: number) =>
  Math.min(ttlMs, Math.round(ttlMs / 3) + LOCK_DELAY_GRACE_MS);
/** A frozen resource's waiters ask again this often (or at the freeze's end, if sooner). */
export const FROZEN_WAIT_MS = 5_000;

/** The moving average of hold times (weights 0.7 old, 0.3 new), the live rules' and replay's. */
export const typical = (before: number | null, held: number) =>
  before === null ? held : 0.7 * before + 0.3 * held;
