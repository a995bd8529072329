/**
 * The plane's rules for one resource, with no I/O: `decide` takes the
 * resource's state, a command and a context (the time, the TTL, the next fence,
 * randomness) and returns the next state, the reply and the events to record.
 * Every store (memory, file, PostgreSQL) keeps states its own way and calls
 * this one function, so the rules live in one place.
 */

import { OUTDATED_REASON, undoGrant } from './deploy-order.js';
import type { Command, Decision, ReleaseReply, ReplyFor, RuleContext } from './command.js';
import { end, gaveBack, holdForGiveBack, revokeRefuses, thawed } from './ending.js';
import type { KernelEvent } from './event.js';
import { freezeCommand, settleFreeze } from './freeze.js';
import { breakGlassCommand, settleBreakGlass, withdrawBreakGlass } from './break-glass.js';
import { lease } from './lease.js';
import type { ResourceState } from './state.js';

// rules.ts is the rules' front door: the kernel and the console import `decide`, its types and
// its constants from here, whichever module beside it holds them.
export type { FreezeReply } from './freeze.js';
export type { BreakGlassReply, WithdrawBreakGlassReply } from './break-glass.js';
export type {
  Freeze,
  LeaseRecord,
  LockDelay,
  ResourceState,
  RevokedMark,
  Waiter,
} from './state.js';
export type { KernelEvent, KernelEventKind } from './event.js';
export type {
  Command,
  Decision,
  LeaseReply,
  ReleaseReply,
  Reply,
  ReplyFor,
  ReplyOf,
  RevokeReply,
  RuleContext,
  StatusReply,
} from './command.js';
export {
  DEFAULT_TTL_MS,
  FROZEN_WAIT_MS,
  LOCK_DELAY_GRACE_MS,
  MAX_RESERVATION_MS,
  NEXT_IN_LINE_WAIT_MS,
  WAITER_GRACE_MS,
  defaultLockDelayMs,
} from './timing.js';
export { etaMs, overdueMs } from './lease.js';
export { revokeRefuses } from './ending.js';
export { afterRestart, replay } from './replay.js';

export const emptyState = (resource: string): ResourceState => ({
  resource,
  lease: null,
  queue: [],
  reservedUntilMs: 0,
  typicalHoldMs: null,
  revoked: [],
});

/** Nothing worth keeping: the store may forget this resource. */
export const isIdle = (s: ResourceState) =>
  s.lease === null &&
  s.queue.length === 0 &&
  s.revoked.length === 0 &&
  s.typicalHoldMs === null &&
  s.lockDelay === undefined &&
  !s.superseded?.length &&
  !s.deploys?.length &&
  !s.frozen &&
  !s.breakGlass &&
  s.windowUntilMs === undefined;

export function decide<C extends Command>(
  state: ResourceState,
  command: C,
  ctx: RuleContext,
): Decision<ReplyFor<C>> {
  // The switch below answers each kind with ReplyOf[kind]; TypeScript cannot follow a generic through it.
  return decideAny(state, command, ctx) as Decision<ReplyFor<C>>;
}

function decideAny(state: ResourceState, command: Command, ctx: RuleContext): Decision {
  const events: KernelEvent[] = [];
  const s = settle(state, ctx.now, events);
  switch (command.kind) {
    case 'lease':
      return { state: s, reply: lease(s, command, ctx, events), events };
    case 'release':
      return { state: s, reply: release(s, command, ctx.now, events), events };
    case 'revoke': {
      const ended = s.lease;
      if (ended) {
        end(s, 'revoke', ctx.now, events, command.reason, command.by);
        // The revoked agent is refused at least a lease lifetime; others may take it at once.
        s.reservedUntilMs = 0;
        s.revoked.push({
          actorDid: ended.holder,
          message: command.reason,
          untilMs: ctx.now + ctx.ttlMs,
          ...(command.by ? { by: command.by } : {}),
        });
        s.queue = s.queue.filter((w) => !revokeRefuses(ended.holder, w.actorDid));
        holdForGiveBack(s, ended, ctx);
      }
      return { state: s, reply: { revoked: ended !== null, lease: ended }, events };
    }
    case 'freeze':
    case 'unfreeze': {
      const reply = freezeCommand(s, command, ctx.now, events);
      if (command.kind === 'unfreeze' && reply.changed) thawed(s, ctx.now);
      return { state: s, reply, events };
    }
    case 'break_glass':
    case 'approve_break_glass':
      return { state: s, reply: breakGlassCommand(s, command, ctx.now, events), events };
    case 'withdraw_break_glass':
      return { state: s, reply: withdrawBreakGlass(s, command, ctx.now, events), events };
    case 'status':
      return {
        state: s,
        reply: { lease: s.lease, frozen: s.frozen ?? ctx.window ?? null },
        events,
      };
    case 'expire':
      return { state: s, reply: null, events };
    case 'leave':
      // Its place, and a reservation kept for it, pass to the next in line (settle drops an empty one).
      s.queue = s.queue.filter((w) => w.actorDid !== command.actorDid);
      if (s.queue.length === 0) s.reservedUntilMs = 0;
      return { state: s, reply: null, events };
  }
}

/** The earliest time at which `expire` would change this state, for the alarm. */
export function nextDeadline(s: ResourceState): number | undefined {
  let next = s.lease?.expiresAtMs;
  const consider = (at: number) => {
    if (next === undefined || at < next) next = at;
  };
  for (const w of s.queue) consider(w.keepUntil + 1);
  for (const m of s.revoked) consider(m.untilMs + 1);
  for (const m of s.superseded ?? []) consider(m.untilMs + 1);
  if (s.reservedUntilMs > 0) consider(s.reservedUntilMs);
  if (s.lockDelay) consider(s.lockDelay.untilMs);
  if (s.frozen?.untilMs != null) consider(s.frozen.untilMs);
  if (s.windowUntilMs !== undefined) consider(s.windowUntilMs);
  if (s.breakGlass) consider(s.breakGlass.untilMs);
  return next;
}

/** A copy with lapses, departed waiters, and old marks and reservations applied. */
function settle(state: ResourceState, now: number, events: KernelEvent[]): ResourceState {
  const s: ResourceState = {
    ...state,
    queue: state.queue.filter((w) => w.keepUntil >= now),
    revoked: state.revoked.filter((m) => m.untilMs > now),
  };
  if (state.superseded) s.superseded = state.superseded.filter((m) => m.untilMs > now);
  if (s.lease && s.lease.expiresAtMs <= now) end(s, 'lapse', now, events);
  if (s.lockDelay && s.lockDelay.untilMs <= now) gaveBack(s, s.lockDelay.untilMs);
  if (s.frozen) {
    const endedAt = settleFreeze(s, now, events);
    if (endedAt !== undefined) thawed(s, endedAt);
  }
  if (s.windowUntilMs !== undefined && s.windowUntilMs <= now) {
    const endedAt = s.windowUntilMs;
    delete s.windowUntilMs;
    thawed(s, endedAt);
  }
  if (s.reservedUntilMs > 0 && (s.reservedUntilMs <= now || s.queue.length === 0)) {
    s.reservedUntilMs = 0;
  }
  settleBreakGlass(s, now);
  return s;
}

function release(
  s: ResourceState,
  { actorDid, outdated }: Extract<Command, { kind: 'release' }>,
  now: number,
  events: KernelEvent[],
): ReleaseReply {
  s.queue = s.queue.filter((w) => w.actorDid !== actorDid);
  if (s.lockDelay?.actorDid === actorDid) gaveBack(s, now);
  const current = s.lease;
  if (current?.holder !== actorDid) return { ok: true, released: false, releasedIds: [] };
  if (outdated) s.deploys = undoGrant(s.deploys, current.deploy);
  end(s, 'release', now, events, outdated ? OUTDATED_REASON : undefined);
  return { ok: true, released: true, releasedIds: [current.id] };
}
