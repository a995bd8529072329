import { CancelledError, KeyRefusedError } from '../plane/errors.js';
import { BrokenGrantError } from '../plane/grant.js';
import type { PlaneClient } from '../plane/client.js';
import type { Lease, LeaseAnswer, LeaseRequest, WatchAnswer } from '../plane/schema.js';
import type { Clock, Sleep } from '../plane/time.js';
import type { KeepEnd, KeeperStatus, Loss } from './keeper-status.js';
import { errorMessage } from '../errors.js';
import { fallbackNote, leaseTimeOf } from './lease-time.js';

/** How our lease ended, when it ended under us. */
export type { KeepEnd, KeeperStatus, Loss } from './keeper-status.js';

export interface KeepOptions extends LeaseRequest {
  client: Pick<PlaneClient, 'lease' | 'release'>;
  lease: Lease;
  clock: Clock;
  /**
   * Wall clock, to stamp the record; it paces only a plane that tells neither `ttlMs` nor a
   * Date header (lease-time.ts), and then the keeper says so once.
   */
  wallNow: () => number;
  /**
   * `clock.now()` when the request that granted `lease` was sent: its lease time runs from
   * no earlier than that. Unknown (a lease read from a file another process wrote): the
   * keeper renews at once, which tells it a fresh lease time from a send time it knows.
   */
  sentAtMs?: number | undefined;
  /** The Date header of the answer that granted `lease` (the plane's clock), when it had one. */
  planeDateMs?: number | undefined;
  sleep: Sleep;
  signal?: AbortSignal | undefined;
  /** The keeper stops after this long, whatever else happens. */
  maxLifetimeMs: number;
  /** False once the process that started the job is gone. */
  parentAlive?: () => boolean;
  /** False once nobody wants the lease kept (the status file is gone, post released it). */
  stillWanted?: () => boolean;
  /** Told after every change of the status. */
  onChange?: (status: KeeperStatus) => void;
  /**
   * One blocking watch on our lease (the plane holds it until the lease ends);
   * kept alongside the renewals, so a revoke is known at once. Without it, or
   * against a plane without the route, renewals alone tell of a loss.
   */
  watch?: (leaseId: string, signal: AbortSignal) => Promise<WatchAnswer>;
}

const MIN_RENEW_EVERY_MS = 100;
/** How often the parent and the lifetime are checked while sleeping. */
const CHECK_EVERY_MS = 2_000;
const RETRY_FAILED_RENEWAL_MS = 1_000;
const GIVE_BACK_MS = 5_000;
/** After a failed watch, or one the plane answered at once, the next one waits this long. */
const WATCH_AGAIN_MS = 1_000;

type Ended = Extract<WatchAnswer, { kind: 'ended' }>;

/**
 * Renews the lease at about a third of its remaining time until stopped. It
 * renews and only renews: an answer naming another lease id means ours ended
 * (lapsed, revoked, released by someone with our DID), so that new lease is
 * given back at once and the loss reported. Correctness never rests on clocks.
 */
export async function keepLease(options: KeepOptions): Promise<KeeperStatus> {
  const { watch } = options;
  if (!watch) return renewLoop(options, {});
  // The watch ends the renewals (and a renewal in flight) the moment it hears the lease ended.
  const inner = new AbortController();
  const stop = () => inner.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) stop();
  const seen: { end?: Ended } = {};
  const watching = watchLoop(options, watch, inner.signal, (end) => {
    seen.end = end;
    stop();
  });
  try {
    return await renewLoop({ ...options, signal: inner.signal }, seen);
  } finally {
    stop();
    options.signal?.removeEventListener('abort', stop);
    await watching;
  }
}

async function watchLoop(
  options: KeepOptions,
  watch: NonNullable<KeepOptions['watch']>,
  signal: AbortSignal,
  onEnd: (end: Ended) => void,
): Promise<void> {
  while (!signal.aborted) {
    const askedAt = options.clock.now();
    let answer: WatchAnswer;
    try {
      answer = await watch(options.lease.id, signal);
    } catch {
      // Renewals go on; watch again shortly.
      await options.sleep(WATCH_AGAIN_MS, signal);
      continue;
    }
    if (answer.kind === 'unsupported') return;
    if (answer.kind === 'ended') return signal.aborted ? undefined : onEnd(answer);
    // A plane that answers at once rather than holding: do not ask in a tight loop.
    const spent = options.clock.now() - askedAt;
    if (spent < WATCH_AGAIN_MS) await options.sleep(WATCH_AGAIN_MS - spent, signal);
  }
}

async function renewLoop(options: KeepOptions, seen: { end?: Ended }): Promise<KeeperStatus> {
  const { client, clock, signal } = options;
  const request = { resource: options.resource, actorDid: options.actorDid };
  const started = clock.now();
  const status = firstStatus(options);
  options.onChange?.(status);
  let leaseEnd = firstLeaseEnd(options, started);
  let nextRenewal = started + Math.max(0, leaseEnd - started) / 3;
  const end = (why: KeepEnd) => {
    status.ended = { atMs: options.wallNow(), why };
    options.onChange?.(status);
    return status;
  };
  const lose = (loss: Omit<Loss, 'atMs'>) => {
    status.lost = { atMs: options.wallNow(), ...loss };
    return end('lost');
  };
  const stopped = () => (seen.end ? lose(lossOf(seen.end)) : end('stopped'));

  for (;;) {
    const now = clock.now();
    if (signal?.aborted) return stopped();
    const halt = haltOf(options, now - started);
    if (halt) return end(halt);
    if (now < nextRenewal) {
      await options.sleep(Math.max(1, Math.min(nextRenewal - now, CHECK_EVERY_MS)), signal);
      continue;
    }
    let answer;
    const sent = { atMs: clock.now(), wallAtMs: options.wallNow() };
    try {
      answer = await client.lease(request, {
        signal,
        retryUntilMs: Math.max(leaseEnd, now + RETRY_FAILED_RENEWAL_MS),
      });
    } catch (error) {
      if (error instanceof CancelledError) return stopped();
      // The renewal named another holder, resource or an absurd lease: the client gave it back.
      if (error instanceof BrokenGrantError) {
        return lose({ reason: 'broken_plane', message: error.message, gaveBack: error.gaveBack });
      }
      status.failures += 1;
      status.lastError = errorMessage(error);
      options.onChange?.(status);
      if (error instanceof KeyRefusedError) return end('key-refused');
      nextRenewal = clock.now() + RETRY_FAILED_RENEWAL_MS;
      continue;
    }
    const answeredAt = clock.now();
    if (answer.kind !== 'granted') return lose(refusalLoss(answer, options.actorDid));
    const { lease } = answer;
    if (lease.id !== status.leaseId) {
      // Not a continuation: exclusivity already had a gap. Give it back, stop.
      const gaveBack = await client
        .release(request, { retryUntilMs: clock.now() + GIVE_BACK_MS })
        .then((r) => r.releasedIds.includes(lease.id))
        .catch(() => false);
      return lose({ reason: 'replaced', newLeaseId: lease.id, gaveBack });
    }
    leaseEnd = sent.atMs + recordRenewal(status, answer, sent.wallAtMs, options.wallNow);
    const remaining = Math.max(0, leaseEnd - answeredAt);
    nextRenewal = answeredAt + Math.max(MIN_RENEW_EVERY_MS, remaining / 3);
    options.onChange?.(status);
  }
}

function firstStatus(options: KeepOptions): KeeperStatus {
  return {
    resource: options.resource,
    actorDid: options.actorDid,
    leaseId: options.lease.id,
    ...(options.lease.fence === undefined ? {} : { fence: options.lease.fence }),
    expiresAtMs: options.lease.expiresAtMs,
    renewals: 0,
    failures: 0,
  };
}

/**
 * Paced on our monotonic clock from when each granting request was SENT (the plane decided
 * no earlier), by the lease time read in the plane's own words (lease-time.ts): a runner's
 * wall clock off by any amount changes nothing. Renewed at a third of the time left. A grant
 * whose send time or lease time is unknown is renewed at once (its end is `started`), which
 * tells both.
 */
function firstLeaseEnd(options: KeepOptions, started: number): number {
  const told = options.lease.ttlMs !== undefined || options.planeDateMs !== undefined;
  return options.sentAtMs === undefined || !told
    ? started
    : options.sentAtMs +
        leaseTimeOf(options.lease, { planeDateMs: options.planeDateMs, wallSentAtMs: 0 }).ms;
}

/** Why the keeper stops on its own, `ranMs` after it started: its lifetime, its parent, its want. */
function haltOf(options: KeepOptions, ranMs: number): KeepEnd | undefined {
  if (ranMs >= options.maxLifetimeMs) return 'lifetime';
  if (options.parentAlive && !options.parentAlive()) return 'parent-gone';
  if (options.stillWanted && !options.stillWanted()) return 'not-wanted';
  return undefined;
}

/** A renewal refused: our lease had ended, and how. */
function refusalLoss(
  answer: Exclude<LeaseAnswer, { kind: 'granted' }>,
  actorDid: string,
): Omit<Loss, 'atMs'> {
  switch (answer.kind) {
    case 'held':
      return { reason: 'lease_held', holder: answer.holder };
    case 'revoked':
      return {
        reason: 'revoked',
        message: answer.message,
        ...(answer.by ? { by: answer.by } : {}),
        // A refusal names the revoked agent itself when nobody holds it: that is no new holder.
        ...(answer.holder && answer.holder !== actorDid ? { holder: answer.holder } : {}),
      };
    case 'superseded':
      return { reason: 'superseded', message: answer.by };
    case 'frozen':
      // A holder's renewals go on through a freeze: this one's lease had already ended.
      return { reason: 'frozen', message: answer.message };
    case 'refused':
      return { reason: answer.reason, ...(answer.message ? { message: answer.message } : {}) };
  }
}

/**
 * A renewal of our own lease, recorded in the status; its lease time in milliseconds, to
 * run from when the renewal was sent.
 */
function recordRenewal(
  status: KeeperStatus,
  answer: Extract<LeaseAnswer, { kind: 'granted' }>,
  wallSentAtMs: number,
  wallNow: () => number,
): number {
  status.renewals += 1;
  status.expiresAtMs = answer.lease.expiresAtMs;
  status.lastRenewedAtMs = wallNow();
  const time = leaseTimeOf(answer.lease, { planeDateMs: answer.planeDateMs, wallSentAtMs });
  // Said once: the plane gave no word on its own clock, so this pace is a guess.
  if (time.source === 'fallback') status.note ??= fallbackNote(time);
  return time.ms;
}

/** A loss as the watch told it: when the plane ended the lease, why, and who holds it now. */
function lossOf(end: Ended): Omit<Loss, 'atMs'> {
  return {
    reason: end.reason,
    ...(end.endedAtMs === undefined ? {} : { endedAtMs: end.endedAtMs }),
    ...(end.message === undefined ? {} : { message: end.message }),
    ...(end.holder === undefined ? {} : { holder: end.holder }),
    ...(end.by === undefined ? {} : { by: end.by }),
  };
}
