/**
 * The plane's rules for one resource, with no I/O: `decide` takes the
 * resource's state, a command and a context (the time, the TTL, the next fence,
 * randomness) and returns the next state, the reply and the events to record.
 * Every store (memory, file, PostgreSQL) keeps states its own way and calls
 * this one function, so the rules live in one place.
 */

import { runAttemptKey } from '../../lease/did.js';
import { passCovers, unpromotedMessage } from '../../plane/run-pass.js';
import type { Deploy, QueueMode } from '../../plane/deploy.js';
import { OUTDATED_REASON, recordGrant, supersede, undoGrant } from './deploy-order.js';
import type { KernelEvent, KernelEventKind } from './event.js';
import {
  freezeCommand,
  type FreezeCommand,
  type UnfreezeCommand,
  frozenReply,
  settleFreeze,
  type FreezeReply,
  type FrozenReply,
} from './freeze.js';

import {
  breakGlassCommand,
  passFor,
  replayBreakGlass,
  settleBreakGlass,
  withdrawBreakGlass,
  type ApproveBreakGlassCommand,
  type BreakGlassCommand,
  type BreakGlassReply,
  type WithdrawBreakGlassCommand,
  type WithdrawBreakGlassReply,
} from './break-glass.js';

export type { FreezeReply } from './freeze.js';
export type { BreakGlassReply, WithdrawBreakGlassReply } from './break-glass.js';
import type { Freeze, LeaseRecord, ResourceState } from './state.js';

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

export type {
  Freeze,
  LeaseRecord,
  LockDelay,
  ResourceState,
  RevokedMark,
  Waiter,
} from './state.js';

export interface RuleContext {
  now: number;
  ttlMs: number;
  /** After a revoke (0: none); `defaultLockDelayMs(ttlMs)` when not given. */
  lockDelayMs?: number | undefined;
  nextInLineWaitMs: number;
  /** Takes the next fence; called only for a grant. */
  nextFence(): number;
  random(): number;
  /** A recurring freeze window in force now for this resource, if any (windows.ts). */
  window?: Freeze | undefined;
  /**
   * The hold after the database failed over (failover.ts): no lease call succeeds, not even a
   * holder's renewal, since the state it would renew may be older than what its holder was told.
   */
  failover?: Freeze | undefined;
}

export type Command =
  | {
      kind: 'lease';
      actorDid: string;
      deploy?: Deploy | undefined;
      queue?: QueueMode | undefined;
      /** Why this deploy breaks the promotion order (the service looked in the ledger). */
      unpromoted?: string | undefined;
      /** The commit that completed the step before and contains this deploy's (GitHub's compare). */
      promotedVia?: string | undefined;
    }
  /** `outdated`: the holder did not deploy (an older commit), so its grant is undone for `previous`. */
  | { kind: 'release'; actorDid: string; outdated?: boolean | undefined }
  /** `by`: who revoked (`operator:NAME`), recorded on the entry when given. */
  | { kind: 'revoke'; reason: string; by?: string | undefined }
  | FreezeCommand
  | UnfreezeCommand
  | BreakGlassCommand
  | ApproveBreakGlassCommand
  | WithdrawBreakGlassCommand
  | { kind: 'status' }
  | { kind: 'expire' }
  /** A waiter that stopped waiting (a held request whose client went away). */
  | { kind: 'leave'; actorDid: string };

export type { KernelEvent, KernelEventKind } from './event.js';

export type LeaseReply =
  | { ok: true; lease: LeaseRecord; renewed: boolean; previous?: Deploy }
  | {
      ok: false;
      reason: 'lease_held';
      holder: string;
      reserved?: true;
      stampede: { waitMs: number };
      position: number;
      etaMs?: number;
      /** How far the holder runs past a typical hold (overdueMs), when it does. */
      overdueMs?: number;
    }
  | FrozenReply
  | { ok: false; reason: 'revoked'; holder: string; message: string; by?: string }
  | { ok: false; reason: 'superseded'; by: string }
  /** The commit has not completed the step before this resource (ledger/promotion.ts). */
  | { ok: false; reason: 'not_promoted'; message: string };

export interface ReleaseReply {
  ok: true;
  released: boolean;
  releasedIds: string[];
}

export interface RevokeReply {
  revoked: boolean;
  lease: LeaseRecord | null;
}

export interface StatusReply {
  lease: LeaseRecord | null;
  /** The operator's freeze or the recurring window in force now, so `status` can say why nobody is granted it. */
  frozen: Freeze | null;
}

/** What each command is answered: `decide` is typed by it, so no caller casts a reply. */
export interface ReplyOf {
  lease: LeaseReply;
  release: ReleaseReply;
  revoke: RevokeReply;
  freeze: FreezeReply;
  unfreeze: FreezeReply;
  break_glass: BreakGlassReply;
  approve_break_glass: BreakGlassReply;
  withdraw_break_glass: WithdrawBreakGlassReply;
  status: StatusReply;
  expire: null;
  leave: null;
}

export type ReplyFor<C extends Command> = ReplyOf[C['kind']];
export type Reply = ReplyOf[keyof ReplyOf];

export interface Decision<R = Reply> {
  state: ResourceState;
  reply: R;
  events: KernelEvent[];
}

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

function lease(
  s: ResourceState,
  command: Extract<Command, { kind: 'lease' }>,
  ctx: RuleContext,
  events: KernelEvent[],
): LeaseReply {
  const { now } = ctx;
  const { actorDid } = command;
  const mark =
    s.revoked.find((m) => m.actorDid === actorDid) ??
    s.revoked.find((m) => revokeRefuses(m.actorDid, actorDid));
  if (mark) {
    // Asking again keeps the refusal alive: a lease lifetime after the last ask.
    const untilMs = Math.max(mark.untilMs, now + ctx.ttlMs);
    s.revoked = s.revoked.map((m) => (m === mark ? { ...mark, untilMs } : m));
    return {
      ok: false as const,
      reason: 'revoked' as const,
      holder: s.lease?.holder ?? actorDid,
      message: mark.message,
      ...(mark.by ? { by: mark.by } : {}),
    };
  }
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
  if (freeze) {
    if (ctx.window?.untilMs != null) s.windowUntilMs = ctx.window.untilMs;
    const position = keepPlace(s, actorDid, lane, 0, now);
    const untilMs = freeze.untilMs ?? Infinity;
    const waitMs = Math.max(1, Math.round(Math.min(FROZEN_WAIT_MS, untilMs - now)));
    keepPlace(s, actorDid, lane, waitMs, now);
    return frozenReply(freeze, waitMs, position);
  }
  const reservedFor = s.reservedUntilMs > now && !pass ? s.queue[0]?.actorDid : undefined;
  const delay = s.lockDelay;
  if (!current && !delay && (reservedFor === undefined || reservedFor === actorDid)) {
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
    return { ok: true as const, lease: s.lease, renewed: false, ...(previous ? { previous } : {}) };
  }
  const position = keepPlace(s, actorDid, lane, 0, now);
  const bound = current
    ? current.expiresAtMs - now
    : delay
      ? delay.untilMs - now
      : s.reservedUntilMs - now;
  const waitMs = waitFor(s, position, bound, ctx);
  keepPlace(s, actorDid, lane, waitMs, now);
  const eta = etaMs(s, position, now);
  // Held by the holder; during a lock-delay still the revoked holder's until it gives back.
  const reply = current
    ? {
        ok: false as const,
        reason: 'lease_held' as const,
        holder: current.holder,
        stampede: { waitMs },
        position,
      }
    : delay
      ? {
          ok: false as const,
          reason: 'lease_held' as const,
          holder: delay.actorDid,
          stampede: { waitMs },
          position,
        }
      : {
          ok: false as const,
          reason: 'lease_held' as const,
          holder: reservedFor!,
          reserved: true as const,
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
function end(
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
function thawed(s: ResourceState, at: number): void {
  const head = s.queue[0];
  if (!head || s.lease || s.lockDelay) return;
  s.reservedUntilMs = Math.max(s.reservedUntilMs, at + MAX_RESERVATION_MS, head.keepUntil);
}

/** A revoke keeps the resource from others until its holder gives it back, at most the lock-delay. */
function holdForGiveBack(s: ResourceState, ended: LeaseRecord, ctx: RuleContext): void {
  const delayMs = ctx.lockDelayMs ?? defaultLockDelayMs(ctx.ttlMs);
  if (delayMs > 0) {
    s.lockDelay = { actorDid: ended.holder, leaseId: ended.id, untilMs: ctx.now + delayMs };
  }
}

/** The revoked holder gave it back (or the lock-delay ended): kept for the next in line briefly. */
function gaveBack(s: ResourceState, at: number): void {
  delete s.lockDelay;
  s.reservedUntilMs = s.queue.length ? at + MAX_RESERVATION_MS : 0;
}

const typical = (before: number | null, held: number) =>
  before === null ? held : 0.7 * before + 0.3 * held;

function record(
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
