import type { LedgerEntry } from '../../ledger/entry.js';
import type { KernelObserver } from './observer.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { Overview } from '../rules/overview.js';
import type { LeaseExtensions } from './lease-extensions.js';
import type { BreakGlassCommand } from '../rules/break-glass.js';
import type {
  BreakGlassReply,
  WithdrawBreakGlassReply,
  FreezeReply,
  KernelEvent,
  LeaseRecord,
  LeaseReply,
  ReleaseReply,
  RevokeReply,
  StatusReply,
} from '../rules/rules.js';

export type ChangeListener = (resource: string, event: KernelEvent) => void;

/**
 * A freeze's arguments, named once for the interface and the service that implements it:
 * `only.replaces`: only where unfrozen or frozen by one of these (rules/freeze.ts).
 */
export type FreezeArgs = [
  resource: string,
  reason: string,
  untilMs: number | null,
  by: string,
  only?: { replaces: readonly string[] },
];

/** A break-glass as an operator opens it: the rules' command without its kind. */
export type BreakGlassPass = Omit<BreakGlassCommand, 'kind'>;

/**
 * What the HTTP app needs of a kernel, whatever keeps its state: the
 * in-process service (memory and file stores) and the PostgreSQL service both
 * answer through the same pure rules.
 */
export interface PlaneService {
  /** The ledger the routes read; `syncLedger` brings it up to date first. */
  readonly ledger: Ledger;
  /** How long a grant or renewal runs: told with each lease, so a keeper paces without a wall clock. */
  readonly ttlMs?: number;
  /** Brings `ledger` up to date with what other replicas committed (one process: it is). */
  syncLedger(): Promise<void>;
  /**
   * The indexes of ledger entries at or after `from` whose line contains
   * `needle`, newest first, at most `limit`: a search done where the lines
   * are kept (the database), when they are not in this process.
   */
  searchLedger?(needle: string, from: number, limit: number): Promise<number[]>;
  lease(resource: string, actorDid: string, extensions?: LeaseExtensions): Promise<LeaseReply>;
  /** `outdated`: the holder did not deploy; its grant no longer counts as the repository's last. */
  release(resource: string, actorDid: string, outdated?: boolean): Promise<ReleaseReply>;
  /** `by`: who revoked (`operator:NAME`), recorded on the ledger entry when given. */
  revoke(resource: string, reason: string, by?: string): Promise<RevokeReply>;
  /** A freeze: no new grant until `untilMs` (null: until unfrozen); see FreezeArgs. */
  freeze(...args: FreezeArgs): Promise<FreezeReply>;
  /** `only.ifBy`: only a freeze by that `by`; `only.reason`: the entry's reason. */
  unfreeze(
    resource: string,
    by: string,
    only?: { ifBy?: string; reason?: string },
  ): Promise<FreezeReply>;
  /**
   * An operator's break-glass: `actorDid` may be granted `resource` once, frozen or not,
   * until `untilMs`; with `needsApproval`, only once another operator approved it.
   */
  breakGlass(resource: string, pass: BreakGlassPass): Promise<BreakGlassReply>;
  /**
   * The second operator approves the pending break-glass for `actorDid`. `approval`: an OIDC
   * approval's run and attempt, which approves one pass only (refused `approval_used` after).
   */
  approveBreakGlass(
    resource: string,
    actorDid: string,
    by: string,
    approval?: string,
  ): Promise<BreakGlassReply>;
  /**
   * An operator withdraws the unused break-glass on `resource` (only the one for `actorDid`,
   * when given): a usable one with a signed entry, so a restart does not bring it back.
   */
  withdrawBreakGlass(
    resource: string,
    by: string,
    actorDid?: string,
  ): Promise<WithdrawBreakGlassReply>;
  status(resource: string): Promise<LeaseRecord | null>;
  /** The lease and the freeze in force, for GET lease (`lease-gate status` shows a freeze). */
  statusOf(resource: string): Promise<StatusReply>;
  overview(): Promise<Overview>;
  /**
   * Told after each durable change made here, and, with replicas, another
   * replica's on a resource this one `listen`ed to.
   */
  onChange(listener: ChangeListener): () => void;
  /** Tells `observer` of each batch this process commits (the metrics); returns its undo. */
  observe?(observer: KernelObserver): () => void;
  /**
   * With replicas, another replica's changes of `resource` reach `onChange` and
   * `onResourceChanged` here once this resolves, for a few minutes (held requests
   * and watches call it before they look, each time); a change on a resource no
   * replica listens for wakes no other replica. One process: at once.
   */
  listen(resource: string): Promise<void>;
  /**
   * Told of each change once, in the ledger's order: in one process as it commits; with
   * replicas, by the one that sequenced it (so exactly one replica tells it, in order per
   * resource across replicas). Told as the ledger's entries, numbered (`seq`): notifications
   * are sent from here, and a file kernel's resume after a restart from where they stood.
   */
  onRecorded(listener: (entries: readonly LedgerEntry[]) => void): () => void;
  /**
   * Told when a resource may have become free (a release, lapse or revoke, here
   * or on another replica where this one listens, or a waiter that left): held requests wake on it.
   */
  onResourceChanged(listener: (resource: string) => void): () => void;
  /**
   * Told as a release of `resource` is submitted, before its batch starts: what the
   * listener asks then (a held request asking again) is committed in the release's own
   * batch, after it, so the head of the queue held here is granted in the same commit.
   * Absent: held requests ask once the release is durable (onResourceChanged).
   */
  onReleasing?(listener: (resource: string) => void): () => void;
  /**
   * Wakes the held requests of `resource` on every replica (a queue change no durable
   * event announces, such as superseding). Absent: one process, whose own wake is enough.
   */
  wakeEverywhere?(resource: string): Promise<void>;
  /** Takes a waiter out of the queue at once (a held request whose client went away). */
  leave(resource: string, actorDid: string): Promise<void>;
  /** This process's epoch-aligned monotonic clock, for how long a request is held. */
  now(): number;
  /** Throws when the store cannot take a write now. */
  ready(): Promise<void>;
  close(): Promise<void>;
}
