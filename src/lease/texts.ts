import { formatDuration } from '../gate/duration.js';
import type { Loss } from '../gate/keep.js';
import { operatorReason, revokedBy, type HeldEvent } from '../gate/wait.js';
import type { Lease } from '../plane/schema.js';
import { describeHolder } from './did.js';
import { untrusted } from './escape.js';

/** The texts both faces print: leases, holders, losses. Plane text is escaped here. */

export function formatEpoch(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
    ? `${new Date(ms).toISOString()} (${ms})`
    : 'unknown';
}

/** "2026-12-07 04:00:00 UTC": the one time format of an output that names more than one time. */
export function formatUtc(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
    ? `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
    : 'unknown';
}

/** `at`: how the expiry is written, so an output keeps one time format (status: formatUtc). */
export function describeLease(lease: Lease, at: (ms: number) => string = formatEpoch): string {
  const fence = lease.fence === undefined ? '' : `, fence ${lease.fence}`;
  return `lease ${untrusted(lease.id, 256)}${fence}, expires ${at(lease.expiresAtMs)}`;
}

/** When a lease lapses unless renewed, from the plane's own answer (its expiry), never a fixed TTL. */
export function describeLapse(lease: Lease, nowMs: number): string {
  const at = formatEpoch(lease.expiresAtMs).split(' ')[0];
  const left = lease.expiresAtMs - nowMs;
  return left > 0 ? `lapses at ${at} (in about ${formatDuration(left)})` : `lapses at ${at}`;
}

/** "held by X" — or, for a reservation, "reserved for X (next in line)", never "held by". */
export function describeHeldBy(holder: string, reserved: boolean): string {
  return reserved
    ? `reserved for ${describeHolder(holder)} (next in line)`
    : `held by ${describeHolder(holder)}`;
}

/**
 * "next in line", "3rd in line; about 6m at recent hold times", from a refusal's place and
 * estimate; a holder past the typical hold is "overdue by 2m" (never "about 0ms").
 */
export function describePlace(
  position: number | undefined,
  etaMs: number | undefined,
  overdueMs?: number,
): string {
  const place =
    position === undefined
      ? ''
      : position === 0
        ? 'next in line'
        : `${ordinal(position + 1)} in line`;
  const overdue =
    overdueMs !== undefined && overdueMs > 0
      ? `the holder is overdue by ${formatDuration(overdueMs)} at recent hold times`
      : '';
  const eta =
    etaMs === undefined || (overdue && etaMs === 0)
      ? ''
      : etaMs === 0
        ? 'any moment now at recent hold times'
        : `about ${formatDuration(etaMs)} at recent hold times`;
  return [place, overdue, eta].filter(Boolean).join('; ');
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * What a waiter is waiting for: "held by X (2nd in line; about 6 min at recent hold times)",
 * "frozen until … by an operator: <reason>" or "held while its health check fails: <url>
 * answered 503". Plane text is escaped here.
 */
export function describeWaitState(e: {
  holder: string;
  reserved: boolean;
  frozen?: { message: string; untilMs: number | undefined } | undefined;
  position?: number | undefined;
  etaMs?: number | undefined;
  overdueMs?: number | undefined;
}): string {
  if (e.frozen) {
    const message = untrusted(e.frozen.message);
    // The kernel's message starts "frozen until …", or "held while its health check fails: …"
    // (the health gate's hold, no operator's); another plane's may not.
    return message.startsWith('frozen') || healthHold(message)
      ? message
      : `frozen by an operator: ${message}`;
  }
  const place = describePlace(e.position, e.etaMs, e.overdueMs);
  return `${describeHeldBy(e.holder, e.reserved)}${place ? ` (${place})` : ''}`;
}

/** A wait of --wait-timeout 0 did not time out: it asked once, as told. */
export const ASKED_ONCE = 'asked once (--wait-timeout 0)';

/** The kernel's words for the health gate's hold (kernel/rules/freeze.ts, frozenReply). */
export const HEALTH_HOLD_WORDS = 'held while its health check fails';
export const healthHold = (message: string): boolean => message.startsWith(HEALTH_HOLD_WORDS);

export function describeLoss(resource: string, loss: Loss): string {
  // The plane's own time of the end when it said (a watch), else when we learned of it.
  const at =
    loss.endedAtMs === undefined
      ? formatEpoch(loss.atMs).split(' ')[0]
      : `${formatEpoch(loss.endedAtMs).split(' ')[0]} (plane's clock)`;
  const message = loss.message ? `: ${untrusted(loss.message)}` : '';
  const now = loss.holder ? ` It is now held by ${describeHolder(loss.holder)}.` : '';
  switch (loss.reason) {
    case 'revoked':
      return `Lost ${resource} at ${at}: ${loss.by ? `the lease was revoked ${revokedBy(untrusted(loss.by, 200))}` : 'an operator revoked the lease'}${operatorReason(loss.message && untrusted(loss.message))}.${now}`;
    case 'lapsed':
      return `Lost ${resource} at ${at}: the lease lapsed (not renewed in time).${now}`;
    case 'released':
      return `Lost ${resource} at ${at}: the lease was released by someone acting as this agent.${now}`;
    case 'unknown':
      return `Lost ${resource} at ${at}: the plane says the lease ended, not how.${now}`;
    case 'lease_held':
      return `Lost ${resource} at ${at}: it is now held by ${describeHolder(loss.holder ?? 'another agent')}.`;
    case 'replaced':
      return `Lost ${resource} at ${at}: the lease had ended (lapsed, revoked or released) and the plane granted a new one (${untrusted(loss.newLeaseId ?? '?')}), which was ${loss.gaveBack ? 'given back at once' : 'not confirmed given back; it lapses on its own'}.`;
    case 'broken_plane':
      return `Lost ${resource} at ${at}: a renewal was not ours to believe${message}.`;
    default:
      return `Lost ${resource} at ${at}: the plane refused the renewal (${untrusted(loss.reason, 100)})${message}.${now}`;
  }
}

/** How often a wait whose holder and place stay the same says it is still waiting. */
export const WAIT_PROGRESS_EVERY_MS = 60_000;

/**
 * The wait's lines, for both faces: one at once on the first answer, one
 * whenever the holder or our place changes, and otherwise at most one a
 * minute saying how long it has waited. Undefined: say nothing now.
 */
export function waitNotices(
  resource: string,
  everyMs = WAIT_PROGRESS_EVERY_MS,
): (event: HeldEvent) => string | undefined {
  let lastLineAt = -Infinity;
  return (event) => {
    const changed = event.first || event.holderChanged || event.positionChanged;
    if (!changed && event.elapsedMs - lastLineAt < everyMs) return undefined;
    lastLineAt = event.elapsedMs;
    const place = event.frozen ? '' : describePlace(event.position, event.etaMs, event.overdueMs);
    const waited = event.first ? '' : `; waited ${formatDuration(event.elapsedMs)}`;
    const still = changed ? '' : 'still ';
    return `${resource} is ${still}${describeWaitState({ ...event, position: undefined, etaMs: undefined })}${place ? `; ${place}` : ''}${waited}`;
  };
}
