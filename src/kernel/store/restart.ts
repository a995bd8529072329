import type { KernelEvent, ResourceState } from '../rules/rules.js';

/**
 * What the log says of time when it ends: `lastMs` is its last entry's time;
 * `earliestMs` is the earliest the kernel's clock can have read when that
 * entry was written (entries that share a millisecond are stamped one apart,
 * so a run of +1 stamps may be ahead of the clock; its first one is not).
 */
export interface LogTime {
  lastMs: number;
  earliestMs: number;
}

/** Follows the log's stamps entry by entry. */
export function logTimeAfter(time: LogTime | undefined, tsMs: number): LogTime {
  if (time && tsMs === time.lastMs + 1) return { lastMs: tsMs, earliestMs: time.earliestMs };
  return { lastMs: tsMs, earliestMs: tsMs };
}

/**
 * The restart rule, with no I/O. A lease the log leaves open whose told expiry
 * had passed by the kernel's clock before the log's last entry was written is
 * left to lapse; every other one is renewed so that it has, from `now` (the
 * moment the kernel serves again), at least what it had left when the log
 * ended (its told expiry less the earliest the clock read then, at most one
 * TTL), never earlier than its told expiry. Not a full TTL: leases held at a
 * crash would otherwise keep their resources a whole lifetime longer. The
 * renewal is stamped as of the log's end (`atMs = lastMs`), when the lease was
 * still live, so the ledger shows it renewed before it expired.
 */
export function resumeLeases(
  states: Iterable<ResourceState>,
  time: LogTime,
  now: number,
  ttlMs: number,
): { states: ResourceState[]; events: KernelEvent[] } {
  const resumed: ResourceState[] = [];
  const events: KernelEvent[] = [];
  for (const state of states) {
    const { lease } = state;
    if (!lease || lease.expiresAtMs <= time.earliestMs) continue;
    const leftMs = Math.min(ttlMs, lease.expiresAtMs - time.earliestMs);
    const expiresAtMs = Math.max(lease.expiresAtMs, now + leftMs);
    if (expiresAtMs === lease.expiresAtMs) continue;
    resumed.push({ ...state, lease: { ...lease, expiresAtMs } });
    events.push({
      kind: 'renew',
      atMs: time.lastMs,
      resource: lease.resource,
      actorDid: lease.holder,
      leaseId: lease.id,
      fence: lease.fence,
      expiresAtMs,
      reason: 'kernel restart',
    });
  }
  return { states: resumed, events };
}
