import { causeOf, LeaseGateError, type CauseOptions } from '../errors.js';
import { leaseRequestOf } from '../plane/answers.js';
import { CancelledError } from '../plane/errors.js';
import type { CallOptions, PlaneClient } from '../plane/client.js';
import type { Deploy } from '../plane/deploy.js';
import type { Lease, LeaseAnswer, LeaseRequest } from '../plane/schema.js';
import type { Clock, Sleep } from '../plane/time.js';

export interface WaitOptions extends LeaseRequest {
  client: Pick<PlaneClient, 'lease' | 'release'>;
  /** How long to wait for a held lease; 0 asks once. */
  timeoutMs: number;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  signal?: AbortSignal | undefined;
  /**
   * The longest `Prefer: wait` (seconds) to ask for; it must stay below the
   * client's per-request timeout. 0 or absent: never ask the plane to hold.
   */
  maxHoldSeconds?: number | undefined;
  /** Transient faults are retried at least this long, even when the wait budget is 0. */
  minRetryWindowMs?: number | undefined;
  /** Told every time the lease is found held, before the sleep (awaited). */
  onHeld?: (event: HeldEvent) => void | Promise<void>;
  /**
   * True for a holder whose lease is ours to take up (the protection-rule app's lease
   * for this run): we ask as that holder, which renews it, and go on as it. With this
   * set, the first ask is not held by the plane, so such a lease is seen at once.
   */
  takeUp?: (holder: string) => boolean;
}

export interface HeldEvent {
  holder: string;
  /** Free, but kept for `holder` (the next in line) for a short grace. */
  reserved: boolean;
  /** True on the first refusal and whenever the holder differs from the last one. */
  holderChanged: boolean;
  /** Our place in the plane's queue (0: next in line), when the plane says. */
  position?: number | undefined;
  /** True on the first refusal and whenever the position differs from the last one. */
  positionChanged: boolean;
  /** The plane's estimate of the wait, when it gives one. */
  etaMs?: number | undefined;
  /** How far the holder runs past a typical hold, when the plane says. */
  overdueMs?: number | undefined;
  /** True for the answer to the first ask, which the plane answers at once. */
  first: boolean;
  elapsedMs: number;
  nextAskInMs: number;
  /** An operator froze the resource (then `holder` is empty): a wait, not a refusal. */
  frozen?: FrozenState | undefined;
}

export interface FrozenState {
  message: string;
  untilMs: number | undefined;
}

export type WaitResult =
  | {
      outcome: 'granted';
      lease: Lease;
      waitedMs: number;
      asks: number;
      previous?: Deploy;
      takenUp?: true;
    }
  /** A newer run of the same lane took our place in the queue: final, and not a failure. */
  | { outcome: 'superseded'; by: string; waitedMs: number; asks: number }
  | {
      outcome: 'timeout';
      holder: string;
      reserved: boolean;
      waitedMs: number;
      asks: number;
      frozen?: FrozenState | undefined;
    }
  | { outcome: 'cancelled'; waitedMs: number; asks: number };

/** Any refusal other than lease_held: the plane said no for a reason waiting cannot fix. */
export class LeaseRefusedError extends LeaseGateError<'lease_refused' | 'lease_revoked'> {
  override name = 'LeaseRefusedError';
  /** The plane's reason (`actor_suspended`, …), or what refused (`key refused`). */
  readonly reason: string;
  /** The plane's own words, when it gave any. */
  readonly detail: string | undefined;
  /** `message`: by default "The plane refused the lease: <reason> (<detail>)". */
  constructor(
    options: CauseOptions & {
      reason: string;
      detail?: string | undefined;
      message?: string;
      code?: 'lease_revoked';
    },
  ) {
    const { reason, detail } = options;
    super(
      options.message ?? `The plane refused the lease: ${reason}${detail ? ` (${detail})` : ''}`,
      {
        ...causeOf(options.cause),
        code: options.code ?? 'lease_refused',
      },
    );
    this.reason = reason;
    this.detail = detail;
  }
}

/** An operator revoked this agent's lease on the resource: final, not a wait. */
export class LeaseRevokedError extends LeaseRefusedError {
  override name = 'LeaseRevokedError';
  readonly resource: string;
  readonly operatorMessage: string;
  constructor(options: { resource: string; operatorMessage: string; by?: string | undefined }) {
    const { resource, operatorMessage } = options;
    super({
      reason: 'revoked',
      detail: operatorMessage,
      message: `${resource} was revoked for this agent ${revokedBy(options.by)}${operatorReason(operatorMessage)}`,
      code: 'lease_revoked',
    });
    this.resource = resource;
    this.operatorMessage = operatorMessage;
  }
}

/** "by operator:alice" when the plane names who revoked (plane text, clipped to one line), else "by an operator". */
export const revokedBy = (by: string | undefined): string => `by ${by ?? 'an operator'}`;

/** ": <reason>" for a revoke's message, or nothing when it only repeats "revoked by an operator". */
export function operatorReason(message: string | undefined): string {
  const said = (message ?? '').trim();
  return said === '' || /^revoked( by an operator)?\.?$/i.test(said) ? '' : `: ${said}`;
}

/** A plane that names no back-off must not be hammered. */
const MIN_SLEEP_MS = 100;
/** The longest single sleep, whatever the plane names. */
const MAX_SLEEP_MS = 60_000;
export const MIN_RETRY_WINDOW_MS = 30_000;
const RELEASE_ON_CANCEL_MS = 2_000;
/** A held request shorter than this was not really held: fall back to waitMs. */
const REALLY_HELD_MS = 500;

/**
 * Asks for the lease until it is granted, the budget runs out or the signal
 * fires. The first ask is answered at once (no `Prefer: wait`), so the
 * holder and our place are known within a round trip; later asks ask the
 * plane to hold the request (`Prefer: wait`). After every answer the plane
 * did not hold (the first one included: a plane that ignores `Prefer` must
 * not be asked twice at the start of each job's wait), the loop sleeps the
 * back-off it names, with a little jitter, never past the deadline, with one
 * last ask at the deadline. A wait that ends without the lease leaves the
 * plane's queue, so nothing stays reserved in this agent's name.
 */
export async function waitForLease(options: WaitOptions): Promise<WaitResult> {
  const { client, clock, sleep, signal } = options;
  const request = leaseRequestOf(options);
  const started = clock.now();
  const deadline = started + options.timeoutMs;
  const retryUntilMs = Math.max(
    deadline,
    started + (options.minRetryWindowMs ?? MIN_RETRY_WINDOW_MS),
  );
  const last: { holder?: string | undefined; position?: number | undefined } = {};
  for (let asks = 1; ; asks += 1) {
    const elapsed = () => Math.round(clock.now() - started);
    if (signal?.aborted) {
      // Leave the plane's queue at once rather than when our place lapses.
      if (asks > 1) await releaseQuietly(options, request);
      return { outcome: 'cancelled', waitedMs: elapsed(), asks: asks - 1 };
    }
    // The first ask is never held: the first notice must not wait for a hold to end.
    const waitSeconds = asks === 1 ? undefined : holdSeconds(options, deadline);
    const call: CallOptions = { signal, retryUntilMs, waitSeconds };
    const askedAt = clock.now();
    let answer;
    try {
      answer = await client.lease(request, call);
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
      // The plane may have granted what we never heard of: give it back.
      await releaseQuietly(options, request);
      return { outcome: 'cancelled', waitedMs: elapsed(), asks };
    }
    if (answer.kind !== 'held' && answer.kind !== 'frozen') {
      return settle(options, request, answer, { asks, elapsed });
    }
    // Only a lease held now: a reservation would be a new grant, not the app's lease.
    if (answer.kind === 'held' && !answer.reserved && options.takeUp?.(answer.holder)) {
      const taken = await takeUp(options, answer.holder, { signal, retryUntilMs });
      if (taken)
        return { outcome: 'granted', lease: taken, waitedMs: elapsed(), asks, takenUp: true };
    }
    const remaining = deadline - clock.now();
    const frozen =
      answer.kind === 'frozen' ? { message: answer.message, untilMs: answer.untilMs } : undefined;
    const { holder, reserved } = answer.kind === 'held' ? answer : { holder: '', reserved: false };
    if (remaining <= 0) {
      const waitedMs = elapsed();
      // An ask that ends here must not keep the resource reserved for us.
      await releaseQuietly(options, request);
      return { outcome: 'timeout', holder, reserved, waitedMs, asks, frozen };
    }
    const nextAskInMs = Math.min(pauseMs(options, answer, askedAt), remaining, MAX_SLEEP_MS);
    await options.onHeld?.(
      heldEvent(
        answer,
        { holder, reserved, frozen, asks, elapsedMs: elapsed(), nextAskInMs },
        last,
      ),
    );
    last.holder = holder;
    last.position = answer.position;
    await sleep(nextAskInMs, signal);
  }
}

type Waiting = Extract<LeaseAnswer, { kind: 'held' | 'frozen' }>;

/** An answer that ends the wait: granted, superseded, or a refusal waiting cannot fix (thrown). */
async function settle(
  options: WaitOptions,
  request: LeaseRequest,
  answer: Exclude<LeaseAnswer, Waiting>,
  ask: { asks: number; elapsed: () => number },
): Promise<WaitResult> {
  const { asks, elapsed } = ask;
  switch (answer.kind) {
    case 'granted': {
      if (options.signal?.aborted) {
        await releaseQuietly(options, request);
        return { outcome: 'cancelled', waitedMs: elapsed(), asks };
      }
      const { lease, previous } = answer;
      return {
        outcome: 'granted',
        lease,
        waitedMs: elapsed(),
        asks,
        ...(previous ? { previous } : {}),
      };
    }
    case 'revoked':
      throw new LeaseRevokedError({
        resource: options.resource,
        operatorMessage: answer.message,
        by: answer.by,
      });
    case 'superseded':
      return { outcome: 'superseded', by: answer.by, waitedMs: elapsed(), asks };
    case 'refused':
      throw new LeaseRefusedError({ reason: answer.reason, detail: answer.message });
  }
}

/**
 * Only an answer the plane held as asked may be followed at once by the next ask;
 * any other (the first, or a plane that ignores Prefer) waits the plane's back-off.
 */
function pauseMs(options: WaitOptions, answer: Waiting, askedAt: number): number {
  const reallyHeld =
    answer.preferenceApplied === true && options.clock.now() - askedAt >= REALLY_HELD_MS;
  return reallyHeld
    ? options.random() * 50
    : Math.max(MIN_SLEEP_MS, answer.waitMs + options.random() * Math.min(250, answer.waitMs * 0.1));
}

/** What onHeld is told; `last`: the holder and position the previous notice told. */
function heldEvent(
  answer: Waiting,
  ask: Pick<HeldEvent, 'holder' | 'reserved' | 'frozen' | 'elapsedMs' | 'nextAskInMs'> & {
    asks: number;
  },
  last: { holder?: string | undefined; position?: number | undefined },
): HeldEvent {
  const { holder, asks } = ask;
  return {
    holder,
    reserved: ask.reserved,
    holderChanged: holder !== last.holder,
    positionChanged: asks === 1 || answer.position !== last.position,
    first: asks === 1,
    elapsedMs: ask.elapsedMs,
    nextAskInMs: ask.nextAskInMs,
    position: answer.position,
    etaMs: answer.kind === 'held' ? answer.etaMs : undefined,
    overdueMs: answer.kind === 'held' ? answer.overdueMs : undefined,
    frozen: ask.frozen,
  };
}

/**
 * Asks as the holder (a renewal: same id and fence) and leaves our own place in the
 * queue. Undefined when that lease is not there to take up any more.
 */
async function takeUp(
  options: WaitOptions,
  holder: string,
  call: CallOptions,
): Promise<Lease | undefined> {
  const answer = await options.client.lease({ resource: options.resource, actorDid: holder }, call);
  if (answer.kind === 'granted' && answer.lease.holder === holder) {
    await releaseQuietly(options, { resource: options.resource, actorDid: options.actorDid });
    return answer.lease;
  }
  return undefined;
}

/** Whole seconds the plane may hold this ask: within the budget and the request timeout. */
function holdSeconds(options: WaitOptions, deadline: number): number | undefined {
  const cap = options.maxHoldSeconds ?? 0;
  const left = Math.floor((deadline - options.clock.now()) / 1_000);
  const seconds = Math.min(cap, left);
  return seconds >= 1 ? seconds : undefined;
}

/**
 * Release by (resource, our own DID): it gives back a lease granted in the
 * moment of a cancel, and otherwise only leaves the queue; it can never
 * release another agent's lease.
 */
async function releaseQuietly(options: WaitOptions, request: LeaseRequest): Promise<void> {
  try {
    await options.client.release(request, {
      retryUntilMs: options.clock.now() + RELEASE_ON_CANCEL_MS,
    });
  } catch {
    // Best effort: a lease we could not give back lapses on its own.
  }
}
