import { FAILOVER_BY } from './failover.js';
import type { KernelEvent } from './event.js';
import type { Freeze, ResourceState } from './state.js';

export interface FreezeReply {
  frozen: Freeze | null;
  /** Whether this command changed anything (an unfreeze of a resource not frozen does not). */
  changed: boolean;
}

/**
 * An operator's freeze, within the pure rules (no I/O): while a resource is
 * frozen nobody is granted it; the current holder is not touched (its renewals
 * go on until it gives back, or the operator also revokes). Waiters keep their
 * place in the queue and are refused with `reason: "frozen"`; when the freeze ends, a
 * free resource is kept for the head of the queue (ending.ts, `thawed`). Freezes and
 * unfreezes are ledger entries (`actorDid`: who froze it, `leaseId` empty,
 * `fence` 0, `expiresAtMs`: the end named, `reason`), so a restart replays them
 * and `verify` checks that no grant fell inside one.
 */

export interface FrozenReply {
  ok: false;
  reason: 'frozen';
  message: string;
  /** When the freeze ends (kernel epoch ms), or null: until an operator unfreezes it. */
  until: number | null;
  stampede: { waitMs: number };
  position: number;
}

/**
 * Who a health check's freezes are by (service/health-checks.ts): its hold while the
 * check fails, which it lifts itself when the check passes, and its freeze after a
 * check failed while the resource was held, which only an operator lifts.
 */
export const HEALTH_HOLD_BY = 'health-check';
export const HEALTH_FREEZE_BY = 'health-check:held';

/** The reason text an unfreeze at a freeze's own end records. */
export const FREEZE_ENDED = 'the freeze ended';

/**
 * `replaces`: freeze only where the resource is not frozen, or frozen by one of
 * these (the health check's own hold, health-check.ts); absent: any freeze is
 * replaced (an operator's command).
 */
export interface FreezeCommand {
  kind: 'freeze';
  reason: string;
  untilMs: number | null;
  by: string;
  replaces?: readonly string[] | undefined;
}

/** `ifBy`: unfreeze only a freeze made by this `by` (the health check lifts only its own). */
export interface UnfreezeCommand {
  kind: 'unfreeze';
  by: string;
  ifBy?: string | undefined;
  /** The unfreeze entry's reason; an operator's by default. */
  reason?: string | undefined;
}

export function freezeCommand(
  s: ResourceState,
  command: FreezeCommand | UnfreezeCommand,
  now: number,
  events: KernelEvent[],
): FreezeReply {
  if (command.kind === 'freeze') {
    // Checked here, inside the one decide of the resource, so no other command comes between.
    if (command.replaces && s.frozen && !command.replaces.includes(s.frozen.by))
      return { frozen: s.frozen, changed: false };
    const frozen: Freeze = {
      reason: command.reason,
      untilMs: command.untilMs,
      by: command.by,
      atMs: now,
    };
    s.frozen = frozen;
    events.push(
      freezeEvent('freeze', s.resource, command.by, now, command.reason, command.untilMs),
    );
    return { frozen, changed: true };
  }
  if (!s.frozen) return { frozen: null, changed: false };
  if (command.ifBy !== undefined && s.frozen.by !== command.ifBy)
    return { frozen: s.frozen, changed: false };
  delete s.frozen;
  const reason = command.reason ?? 'unfrozen by an operator';
  events.push(freezeEvent('unfreeze', s.resource, command.by, now, reason));
  return { frozen: null, changed: true };
}

/**
 * A freeze whose end has come is recorded as over (an unfreeze entry) before anything
 * else; returns when it ended (however late that is noticed), or undefined.
 */
export function settleFreeze(
  s: ResourceState,
  now: number,
  events: KernelEvent[],
): number | undefined {
  const untilMs = s.frozen?.untilMs;
  if (untilMs === null || untilMs === undefined || untilMs > now) return undefined;
  const by = s.frozen!.by;
  delete s.frozen;
  events.push(freezeEvent('unfreeze', s.resource, by, now, FREEZE_ENDED));
  return untilMs;
}

export function frozenReply(freeze: Freeze, waitMs: number, position: number): FrozenReply {
  // An operator who gave its name (console, --by) is named; the admin key and a window are not.
  const named = /^operator:(?!admin-key$)(.+)$/.exec(freeze.by)?.[1];
  // The failover hold (failover.ts) is the kernel's own, not an operator's.
  const kernel = freeze.by === FAILOVER_BY;
  const who = kernel ? 'the kernel' : named ? `operator ${named}` : 'an operator';
  const message =
    freeze.by === HEALTH_HOLD_BY
      ? `held while its health check fails: ${freeze.reason}`
      : freeze.by === HEALTH_FREEZE_BY
        ? `frozen after a failed health check until an operator unfreezes it: ${freeze.reason}`
        : freeze.untilMs !== null
          ? `frozen until ${iso(freeze.untilMs)} by ${who}: ${freeze.reason}`
          : named
            ? `frozen by ${who} until unfrozen: ${freeze.reason}`
            : `frozen until an operator unfreezes it: ${freeze.reason}`;
  return {
    ok: false,
    reason: 'frozen',
    message,
    until: freeze.untilMs,
    stampede: { waitMs },
    position,
  };
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function freezeEvent(
  kind: 'freeze' | 'unfreeze',
  resource: string,
  by: string,
  atMs: number,
  reason: string,
  untilMs?: number | null,
): KernelEvent {
  const event: KernelEvent = { kind, atMs, resource, actorDid: by, leaseId: '', fence: 0, reason };
  if (untilMs !== null && untilMs !== undefined) event.expiresAtMs = untilMs;
  return event;
}
