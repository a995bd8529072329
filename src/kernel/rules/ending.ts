/**
 * How a hold ends and what it leaves behind: the end itself (a release, lapse or
 * revoke), its event, the revoke's refusal and lock-delay, the reservation for the
 * next in line. Shared by `decide` (rules.ts) and `lease()` (lease.ts).
 */
import { runAttemptKey } from '../../plane/did.js';
import type { RuleContext } from './command.js';
import type { KernelEvent, KernelEventKind } from './event.js';
import type { LeaseRecord, ResourceState } from './state.js';
import { MAX_RESERVATION_MS, defaultLockDelayMs, typical } from './timing.js';

/**
 * Whether a revoke of `revoked` refuses `actorDid`: the same DID, or another DID of the
 * same attempt of the same run by `runAttemptKey`, the prefix rule an OIDC token's DID
 * check uses: whatever follows the attempt (job, nonce, or any other shape) is ignored,
 * so a token cannot step round its revoke by asking under another tail. A rerun (a new
 * attempt) is not refused.
 */
export function revokeRefuses(revoked: string, actorDid: string): boolean {
  if (revoked === actorDid) return true;
  const key = runAttemptKey(revoked);
  return key !== undefined && key === runAttemptKey(actorDid);
}

/** Ends the lease; a freed resource is kept for the next in line for a short grace only. */
export function end(
  s: ResourceState,
  kind: 'release' | 'lapse' | 'revoke',
  now: number,
  events: KernelEvent[],
  reason?: string,
  by?: string,
): void {
  const lease = s.lease!;
  s.lease = null;
  // A lapse happened when the lease ran out, however late it is noticed.
  const at = kind === 'lapse' ? Math.min(now, lease.expiresAtMs) : now;
  s.typicalHoldMs = typical(s.typicalHoldMs, at - lease.grantedAtMs);
  s.reservedUntilMs = s.queue.length ? at + MAX_RESERVATION_MS : 0;
  record(events, kind, lease, now, reason, by);
}

/**
 * A freeze (an operator's or a window) ended at `at`. Its waiters kept their places but
 * were told to ask again up to FROZEN_WAIT_MS apart, not the next in line's short wait, so
 * a free resource is kept for the head of the queue until its place lapses (its told wait
 * and the grace; at least the usual reservation): the first in line is granted, whoever
 * asks first. A held request is woken by the unfreeze and asks at once. A resource still
 * held, or in a lock-delay, is kept for the head when that ends, as always.
 */
export function thawed(s: ResourceState, at: number): void {
  const head = s.queue[0];
  if (!head || s.lease || s.lockDelay) return;
  s.reservedUntilMs = Math.max(s.reservedUntilMs, at + MAX_RESERVATION_MS, head.keepUntil);
}

/** A revoke keeps the resource from others until its holder gives it back, at most the lock-delay. */
export function holdForGiveBack(s: ResourceState, ended: LeaseRecord, ctx: RuleContext): void {
  const delayMs = ctx.lockDelayMs ?? defaultLockDelayMs(ctx.ttlMs);
  if (delayMs > 0) {
    s.lockDelay = { actorDid: ended.holder, leaseId: ended.id, untilMs: ctx.now + delayMs };
  }
}

/** The revoked holder gave it back (or the lock-delay ended): kept for the next in line briefly. */
export function gaveBack(s: ResourceState, at: number): void {
  delete s.lockDelay;
  s.reservedUntilMs = s.queue.length ? at + MAX_RESERVATION_MS : 0;
}

export function record(
  events: KernelEvent[],
  kind: KernelEventKind,
  lease: LeaseRecord,
  atMs: number,
  reason?: string,
  by?: string,
): void {
  const event: KernelEvent = {
    kind,
    atMs,
    resource: lease.resource,
    actorDid: lease.holder,
    leaseId: lease.id,
    fence: lease.fence,
  };
  if (kind === 'grant' || kind === 'renew') event.expiresAtMs = lease.expiresAtMs;
  if (reason !== undefined) event.reason = reason;
  if (by !== undefined) event.by = by;
  if (kind === 'grant' && lease.deploy) event.deploy = lease.deploy;
  events.push(event);
}
