import { namesNoLease } from '../../plane/entry-kinds.js';
import { HeldCalls, type HoldOptions } from './holding.js';
import type { PlaneService } from './plane-service.js';
import type { KernelEvent, LeaseRecord } from '../rules/rules.js';
import type { LedgerEntry } from '../../ledger/entry.js';

/** How a lease ended, as the plane recorded it. */
export interface LeaseEnd {
  leaseId: string;
  resource: string;
  /** The holder whose lease it was. */
  actorDid: string;
  reason: 'revoked' | 'lapsed' | 'released';
  /** On the plane's clock. */
  endedAtMs: number;
  /** The operator's message (revoked). */
  message?: string;
  /** Who revoked (`operator:NAME`), when named. */
  by?: string;
}

export type WatchAnswer =
  | { kind: 'held'; lease: LeaseRecord; appliedWaitS?: number }
  | {
      kind: 'ended';
      end: LeaseEnd | undefined;
      /** Who holds the resource now, when someone does. */
      holder: string | undefined;
      appliedWaitS?: number;
    }
  /** The lease is (or was) another agent's: only its holder may watch it. */
  | { kind: 'not-yours' };

const REASONS = { revoke: 'revoked', lapse: 'lapsed', release: 'released' } as const;
/** Ends remembered for watches that arrive just after the end (a keeper asking again). */
const REMEMBERED_ENDS = 10_000;
/** How far back the ledger is searched for an end this process did not hear. */
const LEDGER_LOOKBACK = 100_000;
/** Entries looked at per step back (a few of FetchedLines' chunks). */
const LOOKBACK_WINDOW = 1_024;
/** Entries of one lease a ledger search returns at most (its end and the renewals before it). */
const SEARCH_LIMIT = 16;

export type WatchOptions = HoldOptions;

/**
 * Watches on one's own lease: a request held open until the lease ends
 * (revoked, lapsed, released) or the wait runs out. It hears ends through the
 * service's change feed; with replicas it asks the service to listen for the
 * lease's resource first (the PostgreSQL store then tells it that resource's
 * commits by LISTEN/NOTIFY), so a revoke on one replica answers a watch held
 * on another. It listens before it looks, and looks again at the wait's end,
 * so an end is never missed for a notice lost on the way.
 */
export class LeaseWatches extends HeldCalls {
  private readonly waiting = new Map<string, Set<(end: LeaseEnd | undefined) => void>>();
  private readonly ends = new Map<string, LeaseEnd>();

  constructor(service: PlaneService, options: WatchOptions = {}) {
    super(service, options);
    this.unsubscribe = service.onChange((_resource, event) => this.heard(event));
  }

  async watch(
    resource: string,
    actorDid: string,
    leaseId: string,
    preferredS: number | undefined,
    signal: AbortSignal,
  ): Promise<WatchAnswer> {
    const known = this.ends.get(leaseId);
    if (known) return this.endedAnswer(known, actorDid, undefined);
    const listening = this.listen(leaseId);
    try {
      const room = this.mayHold(preferredS);
      // Before the look: an end on another replica after it is told here.
      if (room) await this.service.listen(resource);
      const lease = await this.service.status(resource);
      if (lease?.id !== leaseId) return await this.afterEnd(resource, leaseId, actorDid, undefined);
      if (lease.holder !== actorDid) return { kind: 'not-yours' };
      if (!room) return { kind: 'held', lease };
      const appliedWaitS = this.appliedWait(preferredS);
      this.count += 1;
      let end: LeaseEnd | undefined;
      try {
        end = await listening.until(appliedWaitS * 1_000, signal, () => this.closing);
      } finally {
        this.count -= 1;
      }
      if (end) return this.endedAnswer(end, actorDid, appliedWaitS);
      // The wait ran out (or a notice was lost): look again before saying "still held".
      const again = await this.service.status(resource);
      if (again?.id === leaseId) return { kind: 'held', lease: again, appliedWaitS };
      return await this.afterEnd(resource, leaseId, actorDid, appliedWaitS);
    } finally {
      listening.cancel();
    }
  }

  /** Every held watch answers at once ("still held"; the kernel is stopping). */
  protected answerAll(): void {
    for (const set of this.waiting.values()) for (const wake of set) wake(undefined);
  }

  private heard(event: KernelEvent): void {
    // Grants and renewals end nothing; freezes and break-glass name no lease.
    if (event.kind === 'grant' || event.kind === 'renew') return;
    if (namesNoLease(event.kind)) return;
    const end: LeaseEnd = {
      leaseId: event.leaseId,
      resource: event.resource,
      actorDid: event.actorDid,
      reason: REASONS[event.kind],
      endedAtMs: Math.round(event.atMs),
      ...(event.kind === 'revoke' && event.reason !== undefined ? { message: event.reason } : {}),
      ...(event.kind === 'revoke' && event.by !== undefined ? { by: event.by } : {}),
    };
    this.ends.set(end.leaseId, end);
    if (this.ends.size > REMEMBERED_ENDS) this.ends.delete(this.ends.keys().next().value!);
    for (const wake of this.waiting.get(end.leaseId) ?? []) wake(end);
  }

  private listen(leaseId: string) {
    let heard: LeaseEnd | undefined;
    let wake: ((end: LeaseEnd | undefined) => void) | undefined;
    const onEnd = (end: LeaseEnd | undefined) => {
      heard ??= end;
      wake?.(end);
    };
    let set = this.waiting.get(leaseId);
    if (!set) this.waiting.set(leaseId, (set = new Set()));
    set.add(onEnd);
    return {
      until: (ms: number, signal: AbortSignal, stopping: () => boolean) =>
        new Promise<LeaseEnd | undefined>((resolve) => {
          if (heard || signal.aborted || stopping()) return resolve(heard);
          const timer = this.timers.set(() => finish(undefined), ms);
          const gone = () => finish(undefined);
          const finish = (end: LeaseEnd | undefined) => {
            wake = undefined;
            this.timers.clear(timer);
            signal.removeEventListener('abort', gone);
            resolve(end);
          };
          wake = finish;
          signal.addEventListener('abort', gone, { once: true });
        }),
      cancel: () => {
        set.delete(onEnd);
        if (set.size === 0) this.waiting.delete(leaseId);
      },
    };
  }

  /** The lease is not live: how it ended, from what this process heard or from the ledger. */
  private async afterEnd(
    resource: string,
    leaseId: string,
    actorDid: string,
    appliedWaitS: number | undefined,
  ): Promise<WatchAnswer> {
    const end = this.ends.get(leaseId) ?? (await this.fromLedger(leaseId));
    return this.endedAnswer(end, actorDid, appliedWaitS, resource);
  }

  private async endedAnswer(
    end: LeaseEnd | undefined,
    actorDid: string,
    appliedWaitS: number | undefined,
    resource = end?.resource,
  ): Promise<WatchAnswer> {
    if (end && end.actorDid !== actorDid) return { kind: 'not-yours' };
    const now = resource === undefined ? null : await this.service.status(resource);
    const holder = now && now.id !== end?.leaseId ? now.holder : undefined;
    return {
      kind: 'ended',
      end,
      holder,
      ...(appliedWaitS === undefined ? {} : { appliedWaitS }),
    };
  }

  private async fromLedger(leaseId: string): Promise<LeaseEnd | undefined> {
    await this.service.syncLedger();
    const { ledger } = this.service;
    const size = ledger.size;
    const stop = Math.max(0, size - LEDGER_LOOKBACK);
    const decides = (e: LedgerEntry | undefined) => e?.leaseId === leaseId && !namesNoLease(e.kind);
    let found: LedgerEntry | undefined;
    if (this.service.searchLedger) {
      // Lines in canonical JSON: a string's quotes are escaped, so only the field itself matches.
      const needle = `"leaseId":${JSON.stringify(leaseId)}`;
      for (const seq of await this.service.searchLedger(needle, stop, SEARCH_LIMIT)) {
        if (seq >= size) continue;
        // Read back through the tree, which checks the line before it is believed.
        const e = await ledger.read(seq, seq + 1, size, () => ledger.entry(seq));
        if (decides(e)) {
          found = e;
          break;
        }
      }
    } else {
      // Newest first, a window at a time.
      for (let hi = size; hi > stop && !found; hi -= LOOKBACK_WINDOW) {
        const lo = Math.max(stop, hi - LOOKBACK_WINDOW);
        found = await ledger.read(lo, hi, size, () => {
          for (let i = hi - 1; i >= lo; i -= 1) {
            const e = ledger.entry(i);
            if (decides(e)) return e;
          }
          return undefined;
        });
      }
    }
    if (!found || (found.kind !== 'release' && found.kind !== 'lapse' && found.kind !== 'revoke'))
      return undefined;
    return {
      leaseId,
      resource: found.resource,
      actorDid: found.actorDid,
      reason: REASONS[found.kind],
      endedAtMs: found.tsMs,
      ...(found.kind === 'revoke' && found.reason !== undefined ? { message: found.reason } : {}),
      ...(found.kind === 'revoke' && found.by !== undefined ? { by: found.by } : {}),
    };
  }
}
