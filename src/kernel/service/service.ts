import type { LedgerEntry } from '../../ledger/entry.js';
import type { Ledger } from '../../ledger/ledger.js';
import { causeText, errorMessage } from '../../errors.js';
import { AlarmHeap } from './alarms.js';
import { PassApprovals } from './pass-approvals.js';
import type { Backend, ChangeNotice } from '../store/backend.js';
import { frees } from '../rules/event.js';
import { GroupCommit } from '../store/group-commit.js';
import type { LeaseExtensions } from './lease-extensions.js';
import type { KernelObserver } from './observer.js';
import type { Overview } from '../rules/overview.js';
import { LocalBackend, type LocalBackendOptions } from '../store/local-backend.js';
import type { BreakGlassPass, ChangeListener, FreezeArgs, PlaneService } from './plane-service.js';
import {
  nextDeadline,
  type Command,
  type Decision,
  type KernelEvent,
  type LeaseRecord,
  type LeaseReply,
  type ReleaseReply,
  type ReplyFor,
  type RevokeReply,
  type StatusReply,
} from '../rules/rules.js';
import { workFor, type Work } from '../rules/work.js';

export { toEvent } from '../store/local-backend.js';
export type { ResourceOverview } from '../rules/overview.js';
export type { ChangeListener } from './plane-service.js';

export interface ServiceHooks {
  /** Told of every durable change this process made, in order. */
  onEvents?: ((events: KernelEvent[]) => void) | undefined;
  /** One line per fault the service handled itself (a failed lapse write). */
  log?: ((line: string) => void) | undefined;
}

/** The in-process kernel (memory and file stores): a LocalBackend's options and the hooks. */
export type ServiceOptions = LocalBackendOptions & ServiceHooks;

const ALARM_RETRY_MS = 1_000;
const SWEEP_BATCH = 100;

/**
 * The kernel, once, over any backend (backend.ts): every call is decided by
 * the rules inside the backend's commit and resolves only once its change is
 * durable. Calls are grouped (GroupCommit, bounded as the backend asks); lapses
 * are found by alarms at each decided deadline (a backend of one process) or by
 * sweeping what the backend says is due (a shared one, whose other replicas may
 * be gone); held requests are woken here, for changes made here or heard from
 * other replicas.
 */
export class KernelService implements PlaneService {
  readonly ledger: Ledger;
  /** Set when the backend searches its ledger where it keeps it. */
  readonly searchLedger?: (needle: string, from: number, limit: number) => Promise<number[]>;
  private readonly batches: GroupCommit<Work, Decision>;
  private readonly approvals = new PassApprovals(this);
  private readonly listeners = new Set<ChangeListener>();
  private readonly changedListeners = new Set<(resource: string) => void>();
  private readonly releasingListeners = new Set<(resource: string) => void>();
  private readonly recordedListeners = new Set<(entries: readonly LedgerEntry[]) => void>();
  private observers: KernelObserver[] = [];
  private readonly alarms = new AlarmHeap();
  private readonly scheduled = new Map<string, number>();
  private readonly log: (line: string) => void;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweepFailing = false;
  private closed = false;

  get ttlMs(): number {
    return this.backend.ttlMs;
  }

  private constructor(
    private readonly backend: Backend,
    private readonly hooks: ServiceHooks,
  ) {
    this.ledger = backend.ledger;
    this.log = hooks.log ?? ((line) => console.error(line));
    const { searchLedger } = backend;
    if (searchLedger)
      this.searchLedger = (needle, from, limit) => searchLedger.call(backend, needle, from, limit);
    this.batches = new GroupCommit((work) => this.commit(work), backend.batching);
  }

  /** The in-process kernel over a memory or file store: replays it, then serves. */
  static open(options: ServiceOptions): Promise<{ service: KernelService; warning?: string }> {
    return KernelService.over(new LocalBackend(options), options);
  }

  /** Opens the backend and starts finding lapses. */
  static async over(
    backend: Backend,
    hooks: ServiceHooks = {},
  ): Promise<{ service: KernelService; warning?: string }> {
    const service = new KernelService(backend, hooks);
    backend.watch((notice) => service.heard(notice));
    backend.onSequenced((entries) => service.recorded(entries));
    const { warning } = await backend.open();
    if (backend.shared) {
      service.scheduleSweep();
    } else {
      for (const { resource, at } of backend.deadlines()) service.schedule(resource, at);
      service.arm();
    }
    return { service, ...(warning ? { warning } : {}) };
  }

  lease(resource: string, actorDid: string, extensions?: LeaseExtensions): Promise<LeaseReply> {
    return this.run(resource, { kind: 'lease', actorDid, ...extensions });
  }

  async release(resource: string, actorDid: string, outdated?: boolean): Promise<ReleaseReply> {
    const command = { kind: 'release' as const, actorDid, ...(outdated ? { outdated } : {}) };
    // The request held here longest for the resource asks in the release's batch, after it:
    // the rules decide it on the state the release left, so when it heads the queue it is
    // granted in the same transaction, durable with the release (one WAL flush before the
    // handover is answered, not two in a row). A grant is still answered only once durable,
    // and no one else's grant is durable before the release.
    const reply = await this.batches.submitTogether(() => {
      const released = this.run(resource, command);
      for (const listener of this.releasingListeners) listener(resource);
      return released;
    });
    // A revoked holder giving back changes nothing durable, but ends its lock-delay: wake the waiters.
    if (!reply.released) await this.backend.announceFreed(resource);
    return reply;
  }

  revoke(resource: string, reason: string, by?: string): Promise<RevokeReply> {
    return this.run(resource, { kind: 'revoke', reason, ...(by ? { by } : {}) });
  }

  freeze(...[resource, reason, untilMs, by, only]: FreezeArgs) {
    return this.run(resource, { kind: 'freeze', reason, untilMs, by, ...only });
  }

  unfreeze(resource: string, by: string, only?: { ifBy?: string; reason?: string }) {
    return this.run(resource, { kind: 'unfreeze', by, ...only });
  }

  /** See PlaneService.breakGlass. */
  breakGlass(resource: string, pass: BreakGlassPass) {
    return this.run(resource, { kind: 'break_glass', ...pass });
  }

  /** See PlaneService.approveBreakGlass. */
  approveBreakGlass(resource: string, actorDid: string, by: string, approval?: string) {
    const approve = () =>
      this.run(resource, { kind: 'approve_break_glass', actorDid, by, approval });
    return approval === undefined ? approve() : this.approvals.once(approval, resource, approve);
  }

  /** See PlaneService.withdrawBreakGlass. */
  withdrawBreakGlass(resource: string, by: string, actorDid?: string) {
    return this.run(resource, { kind: 'withdraw_break_glass', by, actorDid });
  }

  async status(resource: string): Promise<LeaseRecord | null> {
    return (await this.statusOf(resource)).lease;
  }

  /** The lease and the freeze in force (an operator's or a recurring window), if any. */
  statusOf(resource: string): Promise<StatusReply> {
    return this.run(resource, { kind: 'status' });
  }

  /** Every resource with a live lease, a reservation, waiters or a freeze. */
  overview(): Promise<Overview> {
    return this.backend.overview();
  }

  /** Brings `ledger` up to date with what other replicas committed (one process: it is). */
  syncLedger(): Promise<void> {
    return this.backend.syncLedger();
  }

  /** See PlaneService.onChange. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** See PlaneService.observe. */
  observe(observer: KernelObserver): () => void {
    this.observers = [...this.observers, observer];
    return () => {
      this.observers = this.observers.filter((o) => o !== observer);
    };
  }

  /** See PlaneService.listen. */
  async listen(resource: string): Promise<void> {
    await this.backend.listen(resource);
  }

  /** See PlaneService.onRecorded. */
  onRecorded(listener: (entries: readonly LedgerEntry[]) => void): () => void {
    this.recordedListeners.add(listener);
    return () => this.recordedListeners.delete(listener);
  }

  /**
   * Wakes the held requests of `resource` on every replica: a queue change no
   * durable event announces (superseding, deploy-order.ts). One process wakes its own.
   */
  wakeEverywhere(resource: string): Promise<void> {
    return this.backend.announceFreed(resource);
  }

  /** Takes a waiter out of the queue at once (nothing durable changes). */
  async leave(resource: string, actorDid: string): Promise<void> {
    await this.run(resource, { kind: 'leave', actorDid });
    this.resourceChanged(resource);
  }

  /**
   * Told when a resource may have become free: a release, lapse or revoke made
   * durable here or on another replica (where this one listens), or a waiter that left.
   * Held requests wake on it.
   */
  onResourceChanged(listener: (resource: string) => void): () => void {
    this.changedListeners.add(listener);
    return () => this.changedListeners.delete(listener);
  }

  /** See PlaneService.onReleasing. */
  onReleasing(listener: (resource: string) => void): () => void {
    this.releasingListeners.add(listener);
    return () => this.releasingListeners.delete(listener);
  }

  /** The backend's clock (a shared backend's decisions read the database's; this paces held requests). */
  now(): number {
    return this.backend.now();
  }

  /** Throws a StoreError when the backend cannot take a write now. */
  ready(): Promise<void> {
    return this.backend.ready();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    await this.batches.idle();
    await this.backend.close();
  }

  private resourceChanged(resource: string): void {
    for (const listener of this.changedListeners) listener(resource);
  }

  private async run<C extends Command>(resource: string, command: C): Promise<ReplyFor<C>> {
    // Once closed, the backend refuses what must be written; a refusal or a read is still answered.
    const work = workFor(resource, command);
    await this.batches.submit(work);
    return work.reply();
  }

  /** One batch through the backend; what it made durable is told and armed, in order. */
  private async commit(work: Work[]): Promise<Array<PromiseSettledResult<Decision>>> {
    const results = this.observers.length
      ? await this.observed(work)
      : await this.backend.commit(work);
    const decided = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const events = decided.flatMap((d) => d.events);
    if (events.length) this.hooks.onEvents?.(events);
    for (const { state, events } of decided) {
      if (!this.backend.shared) this.schedule(state.resource, nextDeadline(state));
      // A shared backend delivers this replica's changes, and others' it listens for, through `watch`.
      if (!this.backend.shared) this.tell({ resource: state.resource, events });
    }
    if (!this.backend.shared) this.arm();
    return results;
  }

  /** The backend's commit, timed and told to the observers (only when there are any). */
  private async observed(work: Work[]): Promise<Array<PromiseSettledResult<Decision>>> {
    const started = performance.now();
    const { name: backend, shared } = this.backend;
    const tell = (decisions: ReadonlyArray<Decision | undefined>, failed: boolean) => {
      const batch = {
        backend,
        shared,
        size: work.length,
        seconds: (performance.now() - started) / 1000,
        commands: work.map((w) => w.command),
        decisions,
        failed,
      };
      // An observer only counts: its failure is logged, never the batch's, which may be durable.
      for (const observer of this.observers) {
        try {
          observer.committed(batch);
        } catch (error) {
          this.log(`a metrics observer failed: ${causeText(error)}`);
        }
      }
    };
    let results: Array<PromiseSettledResult<Decision>>;
    try {
      results = await this.backend.commit(work);
    } catch (error) {
      tell([], true);
      throw error;
    }
    // Told outside the try: what is durable stays answered as such.
    tell(
      results.map((r) => (r.status === 'fulfilled' ? r.value : undefined)),
      false,
    );
    return results;
  }

  /** The backend's numbered entries, once durable (onSequenced): what notifications follow. */
  private recorded(entries: readonly LedgerEntry[]): void {
    for (const listener of this.recordedListeners) listener(entries);
  }

  private heard(notice: ChangeNotice): void {
    this.tell(notice);
  }

  private tell({ resource, events, freed }: ChangeNotice): void {
    for (const event of events) {
      for (const listener of this.listeners) listener(resource, event);
    }
    if (freed || frees(events)) this.resourceChanged(resource);
  }

  /** Keeps one alarm per resource at its earliest deadline (a renewal needs none). */
  private schedule(resource: string, at: number | undefined): void {
    if (at === undefined) return;
    const current = this.scheduled.get(resource);
    if (current !== undefined && current <= at) return;
    this.scheduled.set(resource, at);
    this.alarms.push(at, resource);
  }

  private arm(): void {
    const next = this.alarms.peek();
    if (next === undefined || next >= this.timerAt || this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(() => this.ring(), Math.max(0, next - this.now()) + 1);
    this.timer.unref();
  }

  private ring(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    for (let due = this.alarms.popDue(now); due; due = this.alarms.popDue(now)) {
      const { at, resource } = due;
      if (this.scheduled.get(resource) !== at) continue;
      this.scheduled.delete(resource);
      this.run(resource, { kind: 'expire' }).catch((error: unknown) => {
        this.log(`kernel: could not record a lapse on ${resource}: ${causeText(error)}`);
        this.scheduled.set(resource, now + ALARM_RETRY_MS);
        this.alarms.push(now + ALARM_RETRY_MS, resource);
        this.arm();
      });
    }
    this.arm();
  }

  /** A shared backend: a lapse is recorded within about a quarter of a lease (a second at most). */
  private scheduleSweep(): void {
    if (this.closed) return;
    const every = Math.min(1_000, Math.max(25, this.backend.ttlMs / 4));
    this.sweepTimer = setTimeout(() => void this.sweep(), every * (0.75 + 0.5 * Math.random()));
    this.sweepTimer.unref();
  }

  private async sweep(): Promise<void> {
    try {
      for (const resource of await this.backend.due(SWEEP_BATCH)) {
        if (this.closed) return;
        await this.run(resource, { kind: 'expire' });
      }
      if (this.sweepFailing) this.log(`kernel: ${this.backend.name} answers again`);
      this.sweepFailing = false;
    } catch (error) {
      if (!this.sweepFailing) this.log(`kernel: ${errorMessage(error)}`);
      this.sweepFailing = true;
    } finally {
      this.scheduleSweep();
    }
  }
}
