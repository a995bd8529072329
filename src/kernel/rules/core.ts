import {
  DEFAULT_TTL_MS,
  NEXT_IN_LINE_WAIT_MS,
  decide,
  defaultLockDelayMs,
  emptyState,
  isIdle,
  type Command,
  type Decision,
  type ReplyFor,
  type RuleContext,
  type Freeze,
  type KernelEvent,
  type LeaseRecord,
  type LeaseReply,
  type ReleaseReply,
  type ResourceState,
} from './rules.js';
import { ruleContext } from './work.js';

export {
  DEFAULT_TTL_MS,
  NEXT_IN_LINE_WAIT_MS,
  WAITER_GRACE_MS,
  MAX_RESERVATION_MS,
  defaultLockDelayMs,
} from './rules.js';
export type {
  KernelEvent,
  KernelEventKind,
  LeaseReply,
  ReleaseReply,
  ResourceState,
} from './rules.js';

/** A granted lease as the kernel keeps it. */
export type KernelLease = LeaseRecord;

export interface TableOptions {
  ttlMs?: number;
  /** How soon the agent next in line is told to ask again; tests shorten it. */
  nextInLineWaitMs?: number;
  /** After a revoke, how long others wait at most for the revoked holder to give back (0: not at all). */
  lockDelayMs?: number | undefined;
  random?: () => number;
  /** Recurring freeze windows (windows.ts): the one in force for a resource now, if any. */
  window?: ((resource: string, now: number) => Freeze | undefined) | undefined;
}

/**
 * Every resource's state and the fence counter, in memory, with no I/O:
 * `decide` computes a change without keeping it, `put` keeps it. The service
 * puts a decision only once it is durable.
 */
export class ResourceTable {
  readonly ttlMs: number;
  readonly nextInLineWaitMs: number;
  readonly lockDelayMs: number;
  readonly random: () => number;
  readonly window: TableOptions['window'];
  /** The last fence taken (durable or not: fences never go back, gaps are fine). */
  fence = 0;
  private readonly states = new Map<string, ResourceState>();

  constructor(options: TableOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.nextInLineWaitMs = options.nextInLineWaitMs ?? NEXT_IN_LINE_WAIT_MS;
    this.lockDelayMs = options.lockDelayMs ?? defaultLockDelayMs(this.ttlMs);
    this.random = options.random ?? Math.random;
    this.window = options.window;
  }

  get(resource: string): ResourceState {
    return this.states.get(resource) ?? emptyState(resource);
  }

  decide<C extends Command>(resource: string, command: C, now: number): Decision<ReplyFor<C>> {
    return decide(this.get(resource), command, this.context(resource, now));
  }

  /** The rules' context for one resource at `now`, taking fences from this table. */
  context(resource: string, now: number): RuleContext {
    return ruleContext(this, resource, now, () => (this.fence += 1));
  }

  put(state: ResourceState): void {
    if (isIdle(state)) this.states.delete(state.resource);
    else this.states.set(state.resource, state);
  }

  values(): IterableIterator<ResourceState> {
    return this.states.values();
  }

  get size(): number {
    return this.states.size;
  }
}

/**
 * The rules over a table, applied at once, for in-process use (tests, the
 * bench's core row). The HTTP kernel goes through the service instead.
 */
export class LeaseKernel {
  readonly table: ResourceTable;
  private events: KernelEvent[] = [];

  constructor(options: TableOptions = {}) {
    this.table = new ResourceTable(options);
  }

  get ttlMs(): number {
    return this.table.ttlMs;
  }

  lease(resource: string, actorDid: string, now: number): LeaseReply {
    return this.apply(resource, { kind: 'lease', actorDid }, now);
  }

  release(resource: string, actorDid: string, now: number): ReleaseReply {
    return this.apply(resource, { kind: 'release', actorDid }, now);
  }

  /** The operator's lever: ends the lease at once, whoever holds it. */
  revoke(resource: string, reason: string, now: number): KernelLease | undefined {
    const reply = this.apply(resource, { kind: 'revoke', reason }, now);
    return reply.lease ?? undefined;
  }

  /** No new holder until `untilMs` (null: until unfrozen); the holder keeps renewing. */
  freeze(resource: string, reason: string, untilMs: number | null, now: number): boolean {
    const cmd = { kind: 'freeze' as const, reason, untilMs, by: 'operator' };
    return this.apply(resource, cmd, now).changed;
  }

  unfreeze(resource: string, now: number): boolean {
    const cmd = { kind: 'unfreeze' as const, by: 'operator' };
    return this.apply(resource, cmd, now).changed;
  }

  status(resource: string, now: number): KernelLease | null {
    return this.apply(resource, { kind: 'status' }, now).lease;
  }

  /** Applies every lapse due by `now` (a scan: for tests; the service uses a heap). */
  reclaim(now: number): void {
    for (const state of [...this.table.values()])
      this.apply(state.resource, { kind: 'expire' }, now);
  }

  nextExpiry(): number | undefined {
    let next: number | undefined;
    for (const { lease } of this.table.values()) {
      if (lease && (next === undefined || lease.expiresAtMs < next)) next = lease.expiresAtMs;
    }
    return next;
  }

  /** Hands over the changes of holder since the last call (renewals left out). */
  drainEvents(): KernelEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private apply<C extends Command>(resource: string, command: C, now: number): ReplyFor<C> {
    const { state, reply, events } = this.table.decide(resource, command, now);
    this.table.put(state);
    for (const event of events) if (event.kind !== 'renew') this.events.push(event);
    return reply;
  }
}
