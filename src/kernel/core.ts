import type { Lease } from '../plane/schema.js';

/**
 * The local plane's rules, with no I/O: every method takes the time, so the
 * caller decides what "now" is (a monotonic clock in the server, a number in tests).
 */

export const DEFAULT_TTL_MS = 30_000;
/** The agent next in line polls this often, so a handover costs one short sleep. */
export const NEXT_IN_LINE_WAIT_MS = 500;
/** A waiter is dropped when it has not asked again this long after its told wait. */
export const WAITER_GRACE_MS = 2_000;

export interface KernelLease extends Lease {
  fence: number;
  grantedAtMs: number;
}

/** What a store keeps so that a restart loses neither leases nor the fence counter. */
export interface KernelSnapshot {
  fence: number;
  leases: KernelLease[];
}

export type KernelEventKind = 'grant' | 'release' | 'lapse' | 'revoke';

/** Every change of holder, for the ledger and the store. Renewals are not events. */
export interface KernelEvent {
  kind: KernelEventKind;
  atMs: number;
  resource: string;
  actorDid: string;
  leaseId: string;
  fence: number;
  reason?: string;
}

export type LeaseReply =
  | { ok: true; lease: KernelLease; renewed: boolean }
  | {
      ok: false;
      reason: 'lease_held';
      holder: string;
      stampede: { waitMs: number };
      position: number;
    };

export interface ReleaseReply {
  ok: true;
  released: boolean;
  releasedIds: string[];
}

export interface ResourceView {
  resource: string;
  lease: KernelLease | null;
  reserved: { holder: string; untilMs: number } | null;
  queue: { actorDid: string; position: number }[];
}

interface Waiter {
  actorDid: string;
  /** When this waiter must have asked again to keep its place. */
  keepUntil: number;
}

export interface KernelOptions {
  ttlMs?: number;
  /** How soon the agent next in line is told to ask again; tests shorten it. */
  nextInLineWaitMs?: number;
  random?: () => number;
  snapshot?: KernelSnapshot;
}

export class LeaseKernel {
  readonly ttlMs: number;
  private readonly nextInLineWaitMs: number;
  private readonly random: () => number;
  private fence: number;
  private readonly leases = new Map<string, KernelLease>();
  private readonly queues = new Map<string, Waiter[]>();
  /** Per resource, a moving average of how long holders kept it. */
  private readonly typicalHold = new Map<string, number>();
  private events: KernelEvent[] = [];

  constructor(options: KernelOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.nextInLineWaitMs = options.nextInLineWaitMs ?? NEXT_IN_LINE_WAIT_MS;
    this.random = options.random ?? Math.random;
    this.fence = options.snapshot?.fence ?? 0;
    for (const lease of options.snapshot?.leases ?? []) this.leases.set(lease.resource, lease);
  }

  /** Grants, renews or refuses. Waiters are served first come, first served. */
  lease(resource: string, actorDid: string, now: number): LeaseReply {
    const current = this.live(resource, now);
    if (current?.holder === actorDid) {
      current.expiresAtMs = now + this.ttlMs;
      return { ok: true, lease: { ...current }, renewed: true };
    }
    const queue = this.queue(resource, now);
    if (!current && (queue.length === 0 || queue[0]?.actorDid === actorDid)) {
      queue.shift();
      if (queue.length === 0) this.queues.delete(resource);
      return { ok: true, lease: { ...this.grant(resource, actorDid, now) }, renewed: false };
    }
    let position = queue.findIndex((w) => w.actorDid === actorDid);
    if (position < 0) position = queue.push({ actorDid, keepUntil: 0 }) - 1;
    const remaining = current ? current.expiresAtMs - now : 0;
    const waitMs = this.waitFor(resource, position, current ? remaining : this.ttlMs);
    queue[position]!.keepUntil = now + waitMs + WAITER_GRACE_MS;
    const holder = current?.holder ?? queue[0]!.actorDid;
    return { ok: false, reason: 'lease_held', holder, stampede: { waitMs }, position };
  }

  /** Gives the lease back if `actorDid` holds it; a non-holder changes nothing but leaves the queue. */
  release(resource: string, actorDid: string, now: number): ReleaseReply {
    const current = this.live(resource, now);
    this.leaveQueue(resource, actorDid);
    if (current?.holder !== actorDid) return { ok: true, released: false, releasedIds: [] };
    this.end(current, 'release', now);
    return { ok: true, released: true, releasedIds: [current.id] };
  }

  /** The operator's lever: ends the lease at once, whoever holds it. */
  revoke(resource: string, reason: string, now: number): KernelLease | undefined {
    const current = this.live(resource, now);
    if (current) this.end(current, 'revoke', now, reason);
    return current;
  }

  status(resource: string, now: number): KernelLease | null {
    const current = this.live(resource, now);
    return current ? { ...current } : null;
  }

  // console branch (minimal; the kernel rewrite supersedes it): the state behind GET /api/v1/kernel/resources.
  /** Every resource with a lease or waiters: holder, the next in line when free, and the queue. */
  overview(now: number): ResourceView[] {
    this.reclaim(now);
    const names = new Set([...this.leases.keys(), ...this.queues.keys()]);
    return [...names].sort().flatMap((resource) => {
      const lease = this.leases.get(resource);
      const queue = this.queue(resource, now);
      if (!lease && queue.length === 0) return [];
      const first = queue[0];
      return [
        {
          resource,
          lease: lease ? { ...lease } : null,
          reserved: !lease && first ? { holder: first.actorDid, untilMs: first.keepUntil } : null,
          queue: queue.map((w, position) => ({ actorDid: w.actorDid, position })),
        },
      ];
    });
  }

  /** Reclaims every lapsed lease; the server's alarm calls this, but every call checks too. */
  reclaim(now: number): void {
    for (const resource of [...this.leases.keys()]) this.live(resource, now);
  }

  /** When the next lease lapses, for the alarm. */
  nextExpiry(): number | undefined {
    let next: number | undefined;
    for (const lease of this.leases.values()) {
      if (next === undefined || lease.expiresAtMs < next) next = lease.expiresAtMs;
    }
    return next;
  }

  snapshot(): KernelSnapshot {
    return { fence: this.fence, leases: [...this.leases.values()].map((l) => ({ ...l })) };
  }

  /** Hands over the events since the last call. */
  drainEvents(): KernelEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private live(resource: string, now: number): KernelLease | undefined {
    const lease = this.leases.get(resource);
    if (lease && lease.expiresAtMs <= now) {
      this.end(lease, 'lapse', now);
      return undefined;
    }
    return lease;
  }

  private grant(resource: string, actorDid: string, now: number): KernelLease {
    this.fence += 1;
    const lease: KernelLease = {
      id: `lease_${this.fence.toString(36)}_${this.randomHex(8)}`,
      resource,
      holder: actorDid,
      expiresAtMs: now + this.ttlMs,
      fence: this.fence,
      grantedAtMs: now,
    };
    this.leases.set(resource, lease);
    this.record('grant', lease, now);
    return lease;
  }

  private end(lease: KernelLease, kind: KernelEventKind, at: number, reason?: string): void {
    this.leases.delete(lease.resource);
    const held = at - lease.grantedAtMs;
    const before = this.typicalHold.get(lease.resource);
    this.typicalHold.set(lease.resource, before === undefined ? held : 0.7 * before + 0.3 * held);
    this.record(kind, lease, at, reason);
  }

  private record(kind: KernelEventKind, lease: KernelLease, atMs: number, reason?: string): void {
    const { resource, holder: actorDid, id: leaseId, fence } = lease;
    this.events.push({
      kind,
      atMs,
      resource,
      actorDid,
      leaseId,
      fence,
      ...(reason ? { reason } : {}),
    });
  }

  /** The resource's queue, without waiters that stopped asking. */
  private queue(resource: string, now: number): Waiter[] {
    const queue = (this.queues.get(resource) ?? []).filter((w) => w.keepUntil >= now);
    this.queues.set(resource, queue);
    return queue;
  }

  private leaveQueue(resource: string, actorDid: string): void {
    const queue = this.queues.get(resource)?.filter((w) => w.actorDid !== actorDid);
    if (queue?.length) this.queues.set(resource, queue);
    else this.queues.delete(resource);
  }

  /**
   * The next in line polls briefly, so a handover costs at most one short
   * sleep. Those further back cannot be served before the holds ahead of them
   * end: they wait about half the typical time of those holds (never less than
   * the next in line, jittered so they do not stampede), never past the lease's end.
   */
  private waitFor(resource: string, position: number, boundMs: number): number {
    const next = this.nextInLineWaitMs;
    let wait = next;
    if (position > 0) {
      const ahead = position * (this.typicalHold.get(resource) ?? 0);
      wait = Math.max(next, ahead / 2) * (1 + 0.2 * this.random());
    }
    return Math.max(1, Math.round(Math.min(wait, boundMs)));
  }

  private randomHex(length: number): string {
    let hex = '';
    while (hex.length < length) hex += Math.floor(this.random() * 16).toString(16);
    return hex;
  }
}
