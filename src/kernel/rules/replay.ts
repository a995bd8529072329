/**
 * A restart's side of the rules: rebuilding a resource's durable part from the log
 * (`replay`) and the rule applied once the log is read (`afterRestart`). Pure, like rules.ts.
 */
import { passCovers } from '../../plane/run-pass.js';
import { replayBreakGlass } from './break-glass.js';
import { OUTDATED_REASON, recordGrant, undoGrant } from './deploy-order.js';
import { revokeRefuses } from './ending.js';
import type { KernelEvent } from './event.js';
import type { ResourceState } from './state.js';
import { defaultLockDelayMs, typical } from './timing.js';

/**
 * Rebuilds a resource's durable part from one recorded event (a restart's
 * replay). Queues are not durable: waiters ask again.
 */
export function replay(
  state: ResourceState,
  e: KernelEvent,
  ttlMs: number,
  lockDelayMs = defaultLockDelayMs(ttlMs),
): ResourceState {
  const s: ResourceState = { ...state, queue: [], reservedUntilMs: 0 };
  if (e.kind === 'freeze') {
    s.frozen = {
      reason: e.reason ?? '',
      untilMs: e.expiresAtMs ?? null,
      by: e.actorDid,
      atMs: e.atMs,
    };
  } else if (e.kind === 'unfreeze') {
    delete s.frozen;
  } else if (e.kind === 'break_glass' || e.kind === 'break_glass_withdrawn') {
    replayBreakGlass(s, e);
  } else if (e.kind === 'grant') {
    if (s.breakGlass && passCovers(s.breakGlass.actorDid, e.actorDid)) delete s.breakGlass;
    // A give-back is not logged: a lock-delay replayed stands until its time (safe: it only delays).
    delete s.lockDelay;
    // A grant to a revoked agent (or to its run's attempt) can only follow its refusal's end.
    if (s.revoked.length > 0) {
      s.revoked = s.revoked.filter((m) => !revokeRefuses(m.actorDid, e.actorDid));
    }
    s.lease = {
      id: e.leaseId,
      resource: e.resource,
      holder: e.actorDid,
      expiresAtMs: e.expiresAtMs ?? e.atMs + ttlMs,
      fence: e.fence,
      grantedAtMs: e.atMs,
    };
    if (e.deploy) s.lease.deploy = e.deploy;
    s.deploys = recordGrant(s.deploys, e.deploy).deploys;
  } else if (e.kind === 'renew') {
    if (s.lease) s.lease = { ...s.lease, expiresAtMs: e.expiresAtMs ?? e.atMs + ttlMs };
  } else {
    const held = s.lease ? e.atMs - s.lease.grantedAtMs : null;
    if (held !== null) s.typicalHoldMs = typical(s.typicalHoldMs, held);
    if (e.kind === 'release' && e.reason === OUTDATED_REASON) {
      s.deploys = undoGrant(s.deploys, s.lease?.deploy);
    }
    s.lease = null;
    if (e.kind === 'revoke') {
      s.revoked = [
        ...s.revoked.filter((m) => m.actorDid !== e.actorDid),
        { actorDid: e.actorDid, message: e.reason ?? '', untilMs: e.atMs + ttlMs },
      ];
      if (lockDelayMs > 0) {
        s.lockDelay = { actorDid: e.actorDid, leaseId: e.leaseId, untilMs: e.atMs + lockDelayMs };
      }
    }
  }
  return s;
}

/**
 * After a restart, a revoke the log has not seen end refuses its agent one lease lifetime
 * from now: the asks that kept the refusal alive before the crash are not logged, and a
 * refusal a little too long is safer than a revoke undone. A lock-delay still running in
 * the log runs its whole length again from now, so a clock that stepped forward while the
 * kernel was down cannot hand the resource on before the revoked holder stopped.
 */
export function afterRestart(
  state: ResourceState,
  now: number,
  ttlMs: number,
  lockDelayMs = 0,
): ResourceState {
  let next = state;
  if (state.revoked.length > 0) {
    const untilMs = now + ttlMs;
    next = {
      ...next,
      revoked: state.revoked.map((m) => ({ ...m, untilMs: Math.max(m.untilMs, untilMs) })),
    };
  }
  if (state.lockDelay && state.lockDelay.untilMs > now - lockDelayMs) {
    next = {
      ...next,
      lockDelay: {
        ...state.lockDelay,
        untilMs: Math.max(state.lockDelay.untilMs, now + lockDelayMs),
      },
    };
  }
  return next;
}
