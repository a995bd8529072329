/**
 * The `lease` command (grant, renewal, or a place in the queue), pure like the rest of
 * the rules: `decide` (rules.ts) calls `lease()` on the settled state. Each step that
 * may answer on its own (a revoke's refusal, a superseded run, the failover hold, a
 * renewal, a refused promotion, a freeze, a grant) is a named function here, taken in
 * the order the rules put them: safety first, then policy, then the queue.
 */
import { passCovers, unpromotedMessage } from '../../plane/run-pass.js';
import type { Deploy, QueueMode } from '../../plane/deploy.js';
import { passFor } from './break-glass.js';
import type { Command, LeaseReply, RuleContext } from './command.js';
import { recordGrant, supersede } from './deploy-order.js';
import { record, revokeRefuses } from './ending.js';
import type { KernelEvent } from './event.js';
import { frozenReply, type FrozenReply } from './freeze.js';
import type { BreakGlass, Freeze, ResourceState } from './state.js';
import { FROZEN_WAIT_MS, WAITER_GRACE_MS } from './timing.js';

type LeaseCommand = Extract<Command, { kind: 'lease' }>;

export function lease(
  s: ResourceState,
  command: LeaseCommand,
  ctx: RuleContext,
  events: KernelEvent[],
): LeaseReply {
  const { now } = ctx;
  const { actorDid } = command;
  const refused = revokedReply(s, actorDid, ctx);
  if (refused) return refused;
  const turnedAway = supersededReply(s, command, now + ctx.ttlMs);
  if (turnedAway) return turnedAway;
  if (ctx.failover) return failoverReply(ctx.failover, now);
  const current = s.lease;
  if (current?.holder === actorDid) {
    s.lease = { ...current, expiresAtMs: now + ctx.ttlMs };
    record(events, 'renew', s.lease, now);
    return { ok: true as const, lease: s.lease, renewed: true };
  }
  const lane: Lane = { deploy: command.deploy, queue: command.queue };
  // An operator's break-glass lets its agent past a freeze, the promotion order and the
  // queue, never past a holder.
  const pass = passFor(s, actorDid, now);
  // Not queued: waiting cannot make a commit complete the step before; the gate says which.
  if (command.unpromoted !== undefined && !pass)
    return {
      ok: false,
      reason: 'not_promoted',
      message: unpromotedMessage(command.unpromoted, s.resource, actorDid),
    };
  // The holder's renewals go on; nobody else is granted it while frozen, but waiters keep their place.
  const freeze = pass ? undefined : (s.frozen ?? ctx.window);
  if (freeze) return frozenWait(s, actorDid, lane, freeze, ctx);
  const reservedFor = s.reservedUntilMs > now && !pass ? s.queue[0]?.actorDid : undefined;
  if (!current && !s.lockDelay && (reservedFor === undefined || reservedFor === actorDid)) {
    return grant(s, command, ctx, events, pass);
  }
  return heldReply(s, actorDid, lane, ctx, reservedFor);
}

/** A revoked agent (or another DID of its run's attempt) is refused, and asking again keeps it so. */
function revokedReply(
  s: ResourceState,
  actorDid: string,
  ctx: RuleContext,
): LeaseReply | undefined {
  const mark =
    s.revoked.find((m) => m.actorDid === actorDid) ??
    s.revoked.find((m) => revokeRefuses(m.actorDid, actorDid));
  if (!mark) return undefined;
  // Asking again keeps the refusal alive: a lease lifetime after the last ask.
  const untilMs = Math.max(mark.untilMs, ctx.now + ctx.ttlMs);
  s.revoked = s.revoked.map((m) => (m === mark ? { ...mark, untilMs } : m));
  return {
    ok: false as const,
    reason: 'revoked' as const,
    holder: s.lease?.holder ?? actorDid,
    message: mark.message,
    ...(mark.by ? { by: mark.by } : {}),
  };
}

/** Frozen: the asker keeps (or takes) its place and asks again at most FROZEN_WAIT_MS later. */
function frozenWait(
  s: ResourceState,
  actorDid: string,
  lane: Lane,
  freeze: Freeze,
  ctx: RuleContext,
): FrozenReply {
  const { now } = ctx;
  if (ctx.window?.untilMs != null) s.windowUntilMs = ctx.window.untilMs;
  const position = keepPlace(s, actorDid, lane, 0, now);
  const untilMs = freeze.untilMs ?? Infinity;
  const waitMs = Math.max(1, Math.round(Math.min(FROZEN_WAIT_MS, untilMs - now)));
  keepPlace(s, actorDid, lane, waitMs, now);
  return frozenReply(freeze, waitMs, position);
}

/** The resource is free for this asker (nobody holds it, no lock-delay, no one else's reservation). */
function grant(
  s: ResourceState,
  command: LeaseCommand,
  ctx: RuleContext,
  events: KernelEvent[],
  pass: BreakGlass | undefined,
): LeaseReply {
  const { now } = ctx;
  const { actorDid } = command;
  s.queue = s.queue.filter((w) => w.actorDid !== actorDid);
  // A pass cut the line: the head's reservation (if any) is not kept past this grant.
  s.reservedUntilMs = 0;
  // Once: the pass is used by the grant it let through.
  if (s.breakGlass && !s.breakGlass.pending && passCovers(s.breakGlass.actorDid, actorDid))
    delete s.breakGlass;
  const fence = ctx.nextFence();
  s.lease = {
    id: `lease_${fence.toString(36)}_${randomHex(ctx.random, 8)}`,
    resource: s.resource,
    holder: actorDid,
    expiresAtMs: now + ctx.ttlMs,
    fence,
    grantedAtMs: now,
  };
  if (command.deploy) s.lease.deploy = command.deploy;
  const { previous, deploys } = recordGrant(s.deploys, command.deploy);
  s.deploys = deploys;
  record(events, 'grant', s.lease, now);
  // Let through by a pass: stamped in a run, the entry carries the clock that saw it open.
  if (pass) events[events.length - 1]!.clocked = true;
  if (command.promotedVia !== undefined)
    events[events.length - 1]!.promotedVia = command.promotedVia;
  if (command.issuer !== undefined) events[events.length - 1]!.issuer = command.issuer;
  return { ok: true as const, lease: s.lease, renewed: false, ...(previous ? { previous } : {}) };
}

/**
 * Held (by the holder; during a lock-delay still the revoked holder's until it gives
 * back; or kept for the next in line): the asker keeps its place and is told when to ask again.
 */
function heldReply(
  s: ResourceState,
  actorDid: string,
  lane: Lane,
  ctx: RuleContext,
  reservedFor: string | undefined,
): LeaseReply {
  const { now } = ctx;
  const current = s.lease;
  const delay = s.lockDelay;
  const position = keepPlace(s, actorDid, lane, 0, now);
  const bound = current
    ? current.expiresAtMs - now
    : delay
      ? delay.untilMs - now
      : s.reservedUntilMs - now;
  const waitMs = waitFor(s, position, bound, ctx);
  keepPlace(s, actorDid, lane, waitMs, now);
  const eta = etaMs(s, position, now);
  const reply = {
    ok: false as const,
    reason: 'lease_held' as const,
    holder: current ? current.holder : delay ? delay.actorDid : reservedFor!,
    ...(current || delay ? {} : { reserved: true as const }),
    stampede: { waitMs },
    position,
  };
  if (eta === undefined) return reply;
  const overdue = overdueMs(s, now);
  return overdue === undefined
    ? { ...reply, etaMs: eta }
    : { ...reply, etaMs: eta, overdueMs: overdue };
}

/**
 * How long the holder has held past a typical hold, when it has (then `etaMs` only
 * counts the waiters ahead): a waiter is told "overdue by 3m", not "about 0ms".
 */
export function overdueMs(s: ResourceState, now: number): number | undefined {
  const typicalMs = s.typicalHoldMs;
  if (typicalMs === null || !s.lease) return undefined;
  const over = Math.round(now - s.lease.grantedAtMs - typicalMs);
  return over > 0 ? over : undefined;
}

/**
 * Refused during the failover hold, renewals too: after an asynchronous failover the row
 * may show a lease its holder released (the release was lost) while a lost grant gave the
 * resource to another, so "renewing" it would hand it back beside that holder. Nothing is
 * changed (no queue place: every lease of the old timeline has lapsed when the hold ends,
 * and the waiters ask again then).
 */
function failoverReply(hold: Freeze, now: number): FrozenReply {
  const untilMs = hold.untilMs ?? now + FROZEN_WAIT_MS;
  return frozenReply(hold, Math.max(1, Math.round(Math.min(FROZEN_WAIT_MS, untilMs - now))), 0);
}

/** What a waiter asked with: its deploy and queue mode (deploy-order.ts). */
interface Lane {
  deploy: Deploy | undefined;
  queue: QueueMode | undefined;
}

/**
 * Puts the agent in the queue (at the back, if new, with its lane) and keeps its
 * place `waitMs` + a grace. The refresh keeps the waiter's other fields (its lane).
 */
function keepPlace(
  s: ResourceState,
  actorDid: string,
  lane: Lane,
  waitMs: number,
  now: number,
): number {
  let position = s.queue.findIndex((w) => w.actorDid === actorDid);
  if (position < 0) {
    s.queue = [...s.queue, { actorDid, keepUntil: 0, sinceMs: now, ...lane }];
    position = s.queue.length - 1;
  }
  if (waitMs > 0) {
    s.queue = s.queue.map((w, i) =>
      i === position ? { ...w, keepUntil: now + waitMs + WAITER_GRACE_MS } : w,
    );
  }
  return position;
}

/**
 * About how long until this waiter is granted, at recent hold times: what the
 * current holder has left of a typical hold (none, if it has held longer), plus
 * one typical hold for each waiter ahead. `typicalHoldMs` is a moving average
 * (weights 0.7 old, 0.3 new) of how long each past lease on this resource was held,
 * from its grant to its release, lapse or revoke. Unknown (undefined) until one has ended.
 */
export function etaMs(s: ResourceState, position: number, now: number): number | undefined {
  const typicalMs = s.typicalHoldMs;
  if (typicalMs === null) return undefined;
  const held = s.lease ? now - s.lease.grantedAtMs : typicalMs;
  // A holder past the typical hold has nothing left (overdueMs says by how much): the
  // waiters ahead still count in full, so the 2nd in line is not told "about 0ms".
  return Math.round(Math.max(0, typicalMs - held) + position * typicalMs);
}

/**
 * The next in line polls briefly, so a handover costs at most one short
 * sleep. Those further back cannot be served before the holds ahead of them
 * end: they wait about half the typical time of those holds (never less than
 * the next in line, jittered so they do not stampede), never past the lease's
 * end (or the reservation's).
 */
function waitFor(s: ResourceState, position: number, boundMs: number, ctx: RuleContext): number {
  const next = ctx.nextInLineWaitMs;
  let wait = next;
  if (position > 0) {
    const ahead = position * (s.typicalHoldMs ?? 0);
    wait = Math.max(next, ahead / 2) * (1 + 0.2 * ctx.random());
  }
  return Math.max(1, Math.round(Math.min(wait, boundMs)));
}

/**
 * A superseded waiter is told so while it keeps asking; a run joining the
 * queue supersedes the older waiters of its lane that asked to step aside
 * (or is itself turned away). See deploy-order.ts.
 */
function supersededReply(
  s: ResourceState,
  { actorDid, deploy, queue }: Extract<Command, { kind: 'lease' }>,
  untilMs: number,
): LeaseReply | undefined {
  const mark = s.superseded?.find((m) => m.actorDid === actorDid);
  if (mark) {
    s.superseded = s.superseded!.map((m) => (m === mark ? { ...mark, untilMs } : m));
    return { ok: false, reason: 'superseded', by: mark.by };
  }
  if (!deploy || s.lease?.holder === actorDid || s.queue.some((w) => w.actorDid === actorDid)) {
    return undefined;
  }
  const joined = supersede(s.queue, { actorDid, deploy, queue }, untilMs);
  if (joined.marks.length === 0) return undefined;
  s.queue = joined.queue;
  s.superseded = [...(s.superseded ?? []), ...joined.marks];
  if (s.queue.length === 0) s.reservedUntilMs = 0;
  return joined.joinerBy === undefined
    ? undefined
    : { ok: false, reason: 'superseded', by: joined.joinerBy };
}

function randomHex(random: () => number, length: number): string {
  let hex = '';
  while (hex.length < length) hex += Math.floor(random() * 16).toString(16);
  return hex;
}
