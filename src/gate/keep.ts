import { CancelledError, KeyRefusedError } from '../plane/errors.js';
import type { PlaneClient } from '../plane/client.js';
import type { Lease, LeaseRequest } from '../plane/schema.js';
import type { Clock, Sleep } from '../plane/time.js';

/** What the keeper has seen; post reads it to tell the job what happened. */
export interface KeeperStatus {
  resource: string;
  actorDid: string;
  leaseId: string;
  fence?: number;
  expiresAtMs: number;
  renewals: number;
  /** Wall time of the last successful renewal. */
  lastRenewedAtMs?: number;
  failures: number;
  lastError?: string;
  /** The lease lapsed and was granted again: exclusivity had a gap. */
  gaps: Array<{ atMs: number; previousLeaseId: string; leaseId: string; gapMs: number }>;
  /** Someone else holds it now (or the plane refused): renewing stopped. */
  lost?: { atMs: number; holder?: string; reason: string };
  ended?: { atMs: number; why: KeepEnd };
}

export type KeepEnd = 'stopped' | 'lifetime' | 'parent-gone' | 'lost' | 'key-refused';

export interface KeepOptions extends LeaseRequest {
  client: Pick<PlaneClient, 'lease'>;
  lease: Lease;
  clock: Clock;
  /** Wall clock, only to pace renewals from expiresAtMs and to stamp the record. */
  wallNow: () => number;
  sleep: Sleep;
  signal?: AbortSignal | undefined;
  /** The keeper stops after this long, whatever else happens. */
  maxLifetimeMs: number;
  /** False once the process that started the job is gone. */
  parentAlive?: () => boolean;
  /** Told after every change of the status. */
  onChange?: (status: KeeperStatus) => void;
}

/** The documented lease time, for a plane whose expiry cannot be read against our clock. */
const FALLBACK_LEASE_MS = 30_000;
const MIN_RENEW_EVERY_MS = 100;
/** How often the parent and the lifetime are checked while sleeping. */
const CHECK_EVERY_MS = 2_000;
const RETRY_FAILED_RENEWAL_MS = 1_000;

/**
 * Renews the lease at about a third of its remaining time until stopped.
 * Correctness never rests on the clocks: a new lease id or a refusal from the
 * plane is what tells a gap or a loss.
 */
export async function keepLease(options: KeepOptions): Promise<KeeperStatus> {
  const { client, clock, signal } = options;
  const request = { resource: options.resource, actorDid: options.actorDid };
  const started = clock.now();
  const status: KeeperStatus = {
    resource: options.resource,
    actorDid: options.actorDid,
    leaseId: options.lease.id,
    ...(options.lease.fence === undefined ? {} : { fence: options.lease.fence }),
    expiresAtMs: options.lease.expiresAtMs,
    renewals: 0,
    failures: 0,
    gaps: [],
  };
  let leaseEnd = started + remainingOf(options.lease, options.wallNow());
  let nextRenewal = started + (leaseEnd - started) / 3;
  const end = (why: KeepEnd) => {
    status.ended = { atMs: options.wallNow(), why };
    options.onChange?.(status);
    return status;
  };

  for (;;) {
    const now = clock.now();
    if (signal?.aborted) return end('stopped');
    if (now - started >= options.maxLifetimeMs) return end('lifetime');
    if (options.parentAlive && !options.parentAlive()) return end('parent-gone');
    if (now < nextRenewal) {
      await options.sleep(Math.max(1, Math.min(nextRenewal - now, CHECK_EVERY_MS)), signal);
      continue;
    }
    let answer;
    try {
      answer = await client.lease(request, {
        signal,
        retryUntilMs: Math.max(leaseEnd, now + RETRY_FAILED_RENEWAL_MS),
      });
    } catch (error) {
      if (error instanceof CancelledError) return end('stopped');
      status.failures += 1;
      status.lastError = (error as Error).message;
      options.onChange?.(status);
      if (error instanceof KeyRefusedError) return end('key-refused');
      nextRenewal = clock.now() + RETRY_FAILED_RENEWAL_MS;
      continue;
    }
    const answeredAt = clock.now();
    if (answer.kind !== 'granted') {
      status.lost = {
        atMs: options.wallNow(),
        reason: answer.kind === 'held' ? 'lease_held' : answer.reason,
        ...(answer.kind === 'held' ? { holder: answer.holder } : {}),
      };
      return end('lost');
    }
    const { lease } = answer;
    if (lease.id !== status.leaseId) {
      status.gaps.push({
        atMs: options.wallNow(),
        previousLeaseId: status.leaseId,
        leaseId: lease.id,
        gapMs: Math.max(0, Math.round(answeredAt - leaseEnd)),
      });
      status.leaseId = lease.id;
      if (lease.fence !== undefined) status.fence = lease.fence;
    } else {
      status.renewals += 1;
    }
    status.expiresAtMs = lease.expiresAtMs;
    status.lastRenewedAtMs = options.wallNow();
    const remaining = remainingOf(lease, options.wallNow());
    leaseEnd = answeredAt + remaining;
    nextRenewal = answeredAt + Math.max(MIN_RENEW_EVERY_MS, remaining / 3);
    options.onChange?.(status);
  }
}

/** The lease's time left by its expiry; a reading that skew makes absurd falls back to 30 s. */
function remainingOf(lease: Lease, wallNow: number): number {
  const remaining = lease.expiresAtMs - wallNow;
  return remaining > 0 && remaining <= 3_600_000 ? remaining : FALLBACK_LEASE_MS;
}
