/**
 * What the kernel does after its database failed over to a new timeline, as pure
 * rules (no I/O; the PostgreSQL backend detects the change, postgres/timeline.ts).
 *
 * With asynchronous replication the promoted standby may lack the last commits the
 * old primary acknowledged: grants (with their fences), renewals, releases. Two
 * rules keep exclusivity anyway:
 * - fences carry the timeline as an epoch in their high bits, so every fence drawn
 *   on timeline t is above any drawn on an earlier timeline (a lost grant's too);
 * - for one lease time after the change no lease call succeeds, renewals included
 *   (rules.ts, `failoverReply`): by its end every lease of the old timeline has
 *   lapsed, those the new primary lost included, and every holder was told (a keeper
 *   whose renewal is refused stops). The new primary's rows may show a lease its
 *   holder released, so a "renewal" could hand it back beside a lost grant's holder.
 */
import type { Freeze } from './state.js';

/** Fences of one timeline: below 2^40 each (a trillion grants), under the timeline's epoch. */
export const TIMELINE_FENCE_BITS = 40;
const EPOCH = 2 ** TIMELINE_FENCE_BITS;
/** The last timeline whose fences stay within Number.MAX_SAFE_INTEGER (2^53 - 1). */
export const MAX_TIMELINE = Math.floor(Number.MAX_SAFE_INTEGER / EPOCH);

/**
 * The least fence timeline `timeline` may draw above: (timeline - 1) · 2^40, so a
 * database that never failed over (timeline 1) keeps fences 1, 2, 3…. Undefined
 * past MAX_TIMELINE, where a fence would no longer be an exact number.
 */
export function fenceFloor(timeline: number): number | undefined {
  if (!Number.isSafeInteger(timeline) || timeline < 1 || timeline > MAX_TIMELINE) return undefined;
  return (timeline - 1) * EPOCH;
}

/** Who the failover hold is "by" in a frozen answer, and in `windowUntilMs`' reply. */
export const FAILOVER_BY = 'failover';

/**
 * The hold after a timeline change seen at `changedAtMs` (the database's clock): no
 * grant or renewal before `changedAtMs + ttlMs`. Answered as a freeze (`reason: "frozen"`, with
 * its end), which every client already waits out; undefined once it is over.
 */
export function failoverHold(
  changedAtMs: number,
  ttlMs: number,
  now: number,
  timeline: number,
): Freeze | undefined {
  const untilMs = changedAtMs + ttlMs;
  if (!(changedAtMs > 0) || untilMs <= now) return undefined;
  return {
    reason: `the database failed over to timeline ${timeline}: no lease is granted or renewed for one lease time, in case the old primary acknowledged changes that were lost`,
    untilMs,
    by: FAILOVER_BY,
    atMs: changedAtMs,
  };
}
