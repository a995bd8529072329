import type { LedgerEntry } from '../../ledger/entry.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { KernelEvent } from '../rules/event.js';
import type { GroupCommitOptions } from './group-commit.js';
import type { Overview } from '../rules/overview.js';
import type { Decision } from '../rules/rules.js';
import type { Work } from '../rules/work.js';

/** A change another replica committed, as a shared store delivers it. */
export interface ChangeNotice {
  resource: string;
  events: KernelEvent[];
  /** No ledger entry, but the resource may be free (a revoked holder gave back). */
  freed?: boolean | undefined;
}

/** What a backend knows when it is open. */
export interface Opened {
  /** Said once at start (a torn last record that was cut off, renewals still owed). */
  warning?: string | undefined;
}

/**
 * Where the kernel's state is kept: memory, a file, or PostgreSQL. It commits
 * batches, finds what is due, hears other replicas and tells the time. The
 * service above it (service.ts) does everything else once: group commit,
 * lapse alarms, held requests' wake-ups, listeners. See docs/architecture.md.
 */
export interface Backend {
  /** The ledger the routes read; kept up to date by the backend. */
  readonly ledger: Ledger;
  /** How the service batches calls for it (see GroupCommit). */
  readonly batching: GroupCommitOptions;
  /** How a person names it in a log line ("the PostgreSQL store", a file's path). */
  readonly name: string;
  /** The rules' lease lifetime: a shared backend is swept for lapses about four times per lease. */
  readonly ttlMs: number;
  /**
   * Shared by replicas: lapses are found by `due` (a replica that decided a
   * deadline may be gone) and changes, this replica's too, arrive through `watch`.
   */
  readonly shared: boolean;
  open(): Promise<Opened>;
  /**
   * Decides each work item, in order, on the durable state the one before it
   * left, at the backend's time, and makes every change and its numbered ledger
   * entries durable at once, or none of them. One result per item: an item
   * whose resource no durable change touched may be answered even when the write failed.
   */
  commit(work: readonly Work[]): Promise<Array<PromiseSettledResult<Decision>>>;
  /** Resources whose next deadline has passed, earliest first, at most `limit`. */
  due(limit: number): Promise<string[]>;
  /** Resources with deadlines the service should arm alarms for (an unshared backend, at start). */
  deadlines(): Iterable<{ resource: string; at: number }>;
  /**
   * Delivers the changes the service does not see commit: a shared backend's every change
   * this replica committed and another replica's on a resource this one listens for, and
   * `announceFreed`'s notices. (An unshared backend's commits the service tells itself.)
   */
  watch(listener: (notice: ChangeNotice) => void): void;
  /** Another replica's changes of `resource` are delivered from now on (see PlaneService.listen); one process: nothing to do. */
  listen(resource: string): Promise<void>;
  /**
   * Tells `listener` of the entries this process numbered into the ledger, once durable, in
   * the ledger's order (with replicas: this replica's sequencing passes). Notifications follow it.
   */
  onSequenced(listener: (entries: readonly LedgerEntry[]) => void): void;
  /** Tells every replica, this one through `watch`, that a resource may be free without a durable change. */
  announceFreed(resource: string): Promise<void>;
  /** Epoch milliseconds: the clock decisions use (a shared backend's is the database's; this one only paces held requests). */
  now(): number;
  /** Every resource with a live lease, a reservation, waiters or a freeze. */
  overview(): Promise<Overview>;
  /** Brings `ledger` up to date with what other replicas committed (one process: it is). */
  syncLedger(): Promise<void>;
  /**
   * See PlaneService.searchLedger: set where the backend keeps the ledger's lines out of
   * this process (the database) and searches them there; undefined where they are here,
   * and the service reads them itself.
   */
  readonly searchLedger:
    ((needle: string, from: number, limit: number) => Promise<number[]>) | undefined;
  /** Throws a StoreError when the backend cannot take a write now. */
  ready(): Promise<void>;
  close(): Promise<void>;
}
