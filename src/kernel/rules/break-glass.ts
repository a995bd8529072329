import { passCovers } from '../../plane/run-pass.js';
import type { KernelEvent } from './event.js';
import type { BreakGlass, ResourceState } from './state.js';

/**
 * Break-glass, within the pure rules (no I/O): an operator lets one named agent
 * through what would hold it back — a freeze (an operator's, a window's, a
 * health check's) or the promotion order — once, with a reason, for a bounded
 * time. Never through a holder (exclusivity), a revoke, a lock-delay or the
 * failover hold: break-glass overrides policy, not safety.
 *
 * With a second approver configured (the kernel's approver key), a pass opened
 * with the admin key is pending until another operator approves it with the
 * approver key; only then may it be used. The pass becomes a ledger entry of its
 * own (`break_glass`: `actorDid` the agent let through, `by` who opened it,
 * `approvedBy` who approved it, `reason`, `expiresAtMs` its end, no lease) when it
 * can be used, so `verify` accepts a grant inside a freeze only right after one
 * such entry for that agent, unused and unexpired. A pending pass is state only:
 * a restart forgets it and the operator asks again (fail closed).
 *
 * A usable pass withdrawn before it is used, by an operator's cancel or by a new pass that
 * replaces it (pending or not), is a signed entry of its own (`break_glass_withdrawn`): the
 * replay, the live rules and `verify` all read the old pass as gone from there on, so a
 * restart never brings back a pass an operator took away. An OIDC approval names its run
 * and attempt (`approval`), which approves one pass only (the service enforces it across
 * resources, `verify` checks it).
 */

/** How long a pass lasts unless told otherwise, and at most: break-glass is for now, not for later. */
export const DEFAULT_BREAK_GLASS_MS = 15 * 60_000;
export const MAX_BREAK_GLASS_MS = 60 * 60_000;

export interface BreakGlassCommand {
  kind: 'break_glass';
  /** The agent let through. */
  actorDid: string;
  reason: string;
  /** Who opens it, as the ledger names operators (`operator:NAME`). */
  by: string;
  untilMs: number;
  /** A second operator must approve it before it can be used. */
  needsApproval: boolean;
}

export interface ApproveBreakGlassCommand {
  kind: 'approve_break_glass';
  /** The agent the pass is for, so an approver approves what it saw, not a pass replaced since. */
  actorDid: string;
  by: string;
  /** An OIDC approval's run and attempt (recorded: one approval approves one pass). */
  approval?: string | undefined;
}

/** An operator cancels the pass (only the one for `actorDid`, when it names one). */
export interface WithdrawBreakGlassCommand {
  kind: 'withdraw_break_glass';
  actorDid?: string | undefined;
  by: string;
}

export type BreakGlassReply =
  | { ok: true; breakGlass: BreakGlass }
  | { ok: false; reason: 'no_break_glass'; message: string }
  | { ok: false; reason: 'same_operator'; message: string }
  | { ok: false; reason: 'approval_used'; message: string };

/** The reason a withdrawal entry gives, by why it was withdrawn. */
export const WITHDRAWN_REPLACED = 'replaced by a new break-glass';
export const WITHDRAWN_CANCELLED = 'cancelled by an operator';

/** A pass in force for this agent now (open, approved if it had to be, not expired): its own, or its run's. */
export function passFor(s: ResourceState, actorDid: string, now: number): BreakGlass | undefined {
  const pass = s.breakGlass;
  return pass && !pass.pending && passCovers(pass.actorDid, actorDid) && pass.untilMs > now
    ? pass
    : undefined;
}

/** An expired pass is dropped (nothing recorded: the entry named its end). */
export function settleBreakGlass(s: ResourceState, now: number): void {
  if (s.breakGlass && s.breakGlass.untilMs <= now) delete s.breakGlass;
}

export function breakGlassCommand(
  s: ResourceState,
  command: BreakGlassCommand | ApproveBreakGlassCommand,
  now: number,
  events: KernelEvent[],
): BreakGlassReply {
  if (command.kind === 'break_glass') {
    // One pass per resource: a new one replaces the last. A usable one is withdrawn on the
    // ledger first, even when the new one waits for approval and writes nothing yet.
    withdrawUsable(s, command.by, WITHDRAWN_REPLACED, now, events);
    const pass: BreakGlass = {
      actorDid: command.actorDid,
      reason: command.reason,
      by: command.by,
      untilMs: command.untilMs,
      atMs: now,
      pending: command.needsApproval,
    };
    s.breakGlass = pass;
    if (!pass.pending) events.push(breakGlassEvent(s.resource, pass, now));
    return { ok: true, breakGlass: pass };
  }
  const pass = s.breakGlass;
  if (!pass?.pending || pass.actorDid !== command.actorDid) {
    return {
      ok: false,
      reason: 'no_break_glass',
      message: `${s.resource} has no break-glass for ${command.actorDid} waiting for approval`,
    };
  }
  if (pass.by === command.by) {
    return {
      ok: false,
      reason: 'same_operator',
      message: `${command.by} opened this break-glass; another operator must approve it`,
    };
  }
  const approved: BreakGlass = { ...pass, pending: false, approvedBy: command.by };
  if (command.approval !== undefined) approved.approval = command.approval;
  s.breakGlass = approved;
  events.push(breakGlassEvent(s.resource, approved, now));
  return { ok: true, breakGlass: approved };
}

function breakGlassEvent(resource: string, pass: BreakGlass, atMs: number): KernelEvent {
  const event: KernelEvent = {
    kind: 'break_glass',
    atMs,
    resource,
    actorDid: pass.actorDid,
    leaseId: '',
    fence: 0,
    reason: pass.reason,
    by: pass.by,
    expiresAtMs: pass.untilMs,
  };
  if (pass.approvedBy !== undefined) event.approvedBy = pass.approvedBy;
  if (pass.approval !== undefined) event.approval = pass.approval;
  return event;
}

export type WithdrawBreakGlassReply =
  { ok: true; withdrawn: BreakGlass } | { ok: false; reason: 'no_break_glass'; message: string };

/** An operator's cancel: a usable pass is withdrawn on the ledger; a pending one only forgotten. */
export function withdrawBreakGlass(
  s: ResourceState,
  command: WithdrawBreakGlassCommand,
  now: number,
  events: KernelEvent[],
): WithdrawBreakGlassReply {
  const pass = s.breakGlass;
  if (!pass || (command.actorDid !== undefined && pass.actorDid !== command.actorDid)) {
    const whose = command.actorDid === undefined ? '' : ` for ${command.actorDid}`;
    return {
      ok: false,
      reason: 'no_break_glass',
      message: `${s.resource} has no unused break-glass${whose} to withdraw`,
    };
  }
  if (!withdrawUsable(s, command.by, WITHDRAWN_CANCELLED, now, events)) delete s.breakGlass;
  return { ok: true, withdrawn: pass };
}

/** Withdraws the resource's usable (on the ledger) pass, if any, with its entry. */
function withdrawUsable(
  s: ResourceState,
  by: string,
  reason: string,
  now: number,
  events: KernelEvent[],
): boolean {
  const pass = s.breakGlass;
  if (!pass || pass.pending) return false;
  delete s.breakGlass;
  events.push({
    kind: 'break_glass_withdrawn',
    atMs: now,
    resource: s.resource,
    actorDid: pass.actorDid,
    leaseId: '',
    fence: 0,
    reason,
    by,
  });
  return true;
}

/**
 * A restart's replay of a break-glass entry (rules.ts `replay`): a pass, usable, replacing
 * the last; a withdrawal ends the pass it names (as verify reads it).
 */
export function replayBreakGlass(s: ResourceState, e: KernelEvent): void {
  if (e.kind === 'break_glass_withdrawn') {
    if (s.breakGlass?.actorDid === e.actorDid) delete s.breakGlass;
    return;
  }
  s.breakGlass = {
    actorDid: e.actorDid,
    reason: e.reason ?? '',
    by: e.by ?? '',
    untilMs: e.expiresAtMs ?? e.atMs,
    atMs: e.atMs,
    pending: false,
    ...(e.approvedBy !== undefined ? { approvedBy: e.approvedBy } : {}),
    ...(e.approval !== undefined ? { approval: e.approval } : {}),
  };
}
