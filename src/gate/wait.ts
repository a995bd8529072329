import { CancelledError } from '../plane/errors.js';
import type { CallOptions, PlaneClient } from '../plane/client.js';
import type { Lease, LeaseRequest } from '../plane/schema.js';
import type { Clock, Sleep } from '../plane/time.js';

export interface WaitOptions extends LeaseRequest {
  client: Pick<PlaneClient, 'lease' | 'release'>;
  /** How long to wait for a held lease; 0 asks once. */
  timeoutMs: number;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  signal?: AbortSignal | undefined;
  /** Told every time the lease is found held, before the sleep (awaited). */
  onHeld?: (event: HeldEvent) => void | Promise<void>;
}

export interface HeldEvent {
  holder: string;
  /** True on the first refusal and whenever the holder differs from the last one. */
  holderChanged: boolean;
  elapsedMs: number;
  nextAskInMs: number;
}

export type WaitResult =
  | { outcome: 'granted'; lease: Lease; waitedMs: number; asks: number }
  | { outcome: 'timeout'; holder: string; waitedMs: number; asks: number }
  | { outcome: 'cancelled'; waitedMs: number; asks: number };

/** Any refusal other than lease_held: the plane said no for a reason waiting cannot fix. */
export class LeaseRefusedError extends Error {
  override name = 'LeaseRefusedError';
  constructor(
    readonly reason: string,
    detail: string | undefined,
  ) {
    super(`The plane refused the lease: ${reason}${detail ? ` (${detail})` : ''}`);
  }
}

/** A plane that names no back-off must not be hammered. */
const MIN_SLEEP_MS = 100;
/** Transient faults are retried at least this long, even when the wait budget is 0. */
const MIN_RETRY_WINDOW_MS = 30_000;
const RELEASE_ON_CANCEL_MS = 2_000;

/**
 * Asks for the lease until it is granted, the budget runs out or the signal
 * fires. Sleeps the plane's `waitMs` plus a little jitter, never past the
 * deadline, and asks one last time at the deadline.
 */
export async function waitForLease(options: WaitOptions): Promise<WaitResult> {
  const { client, clock, sleep, signal } = options;
  const request = { resource: options.resource, actorDid: options.actorDid };
  const started = clock.now();
  const deadline = started + options.timeoutMs;
  const call: CallOptions = {
    signal,
    retryUntilMs: Math.max(deadline, started + MIN_RETRY_WINDOW_MS),
  };
  let lastHolder: string | undefined;
  for (let asks = 1; ; asks += 1) {
    const elapsed = () => Math.round(clock.now() - started);
    if (signal?.aborted) {
      // Leave the plane's queue at once rather than when our place lapses.
      if (asks > 1) await releaseQuietly(options, request);
      return { outcome: 'cancelled', waitedMs: elapsed(), asks: asks - 1 };
    }
    let answer;
    try {
      answer = await client.lease(request, call);
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
      // The plane may have granted what we never heard of: give it back.
      await releaseQuietly(options, request);
      return { outcome: 'cancelled', waitedMs: elapsed(), asks };
    }
    if (answer.kind === 'granted') {
      if (signal?.aborted) {
        await releaseQuietly(options, request);
        return { outcome: 'cancelled', waitedMs: elapsed(), asks };
      }
      return { outcome: 'granted', lease: answer.lease, waitedMs: elapsed(), asks };
    }
    if (answer.kind === 'refused') throw new LeaseRefusedError(answer.reason, answer.message);
    const remaining = deadline - clock.now();
    if (remaining <= 0) {
      return { outcome: 'timeout', holder: answer.holder, waitedMs: elapsed(), asks };
    }
    const jitter = options.random() * Math.min(250, answer.waitMs * 0.1);
    const nextAskInMs = Math.min(Math.max(MIN_SLEEP_MS, answer.waitMs + jitter), remaining);
    await options.onHeld?.({
      holder: answer.holder,
      holderChanged: answer.holder !== lastHolder,
      elapsedMs: elapsed(),
      nextAskInMs,
    });
    lastHolder = answer.holder;
    await sleep(nextAskInMs, signal);
  }
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
