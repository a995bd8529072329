import type { LedgerEntry } from './entry.js';
import { PromotionRecord } from './promotion.js';
import { namesNoLease } from '../plane/entry-kinds.js';
import { passCovers } from '../plane/run-pass.js';
import { BundleError } from './verify-error.js';
import { issuerProblem } from './issuer-check.js';
import { PassApprovals, frozenGrant, withdraw, type Pass } from './meaning-passes.js';

interface Open {
  leaseId: string;
  actorDid: string;
  fence: number;
  seq: number;
  /** The lease's end as last told (its grant's or latest renewal's), and the entry that told it. */
  expiresAtMs: number | undefined;
  toldAt: number;
  toldKind: string;
}

/**
 * Replicas read their clocks before they take the ledger's order, so an
 * entry's stamp may trail the one before it by a few milliseconds' race; a
 * renewal or grant is judged late only past this margin. (A lapse needs none:
 * the clock that found it due read no earlier than the expiry.)
 */
export const CLOCK_RACE_MS = 1_000;

const named = (e: LedgerEntry) => `entry ${e.seq} (${e.kind} of ${e.leaseId} on ${e.resource})`;

/**
 * Checks that the entries tell a valid history in order and in time: per
 * resource, a grant and its end alternate, and every renewal or end names the
 * open lease (its id, holder and fence); grant fences strictly increase across
 * the log and lease ids are never granted twice; no grant is already expired,
 * no renewal comes after the lease expired, and no lapse comes before the
 * lease's last told expiry (a release or revoke may end it early). On a
 * partial range, a resource's state before its first entry in the range is
 * unknown, and the same rules hold from there on. Freezes and unfreezes name
 * no lease (empty id, fence 0) and leave the open lease alone, but no grant
 * may fall inside a freeze: between a freeze and its unfreeze or the end it named.
 *
 * Time: stamps strictly increase, so entries in one millisecond are stamped
 * one apart and a run of +1 stamps may run ahead of the clock; its first stamp
 * does not. An entry happened no earlier than the first stamp of its run (its
 * `earliest`) and no later than its own stamp. A grant or renewal is judged at
 * its earliest (the reading that makes it valid: neither lets anyone else in).
 * A lapse is what lets the next holder in, so it is judged at the earliest it
 * can have happened: its `clockMs` (the kernel's clock that found it due,
 * which a lapse inside a run carries, never above its stamp), else the first
 * stamp of its run. A lapse judged at its own stamp would let a signer hide an
 * early one behind a run of +1 stamps it wrote (one entry a millisecond, read
 * as a burst in the run's first millisecond).
 */
export function checkMeaning(
  entries: readonly LedgerEntry[],
  partial: boolean,
  promote?: Map<string, string>,
): void {
  const meaning = new MeaningCheck(partial, promote);
  for (const e of entries) meaning.check(e);
}

/**
 * checkMeaning one entry at a time, for a verifier that streams a bundle: it
 * keeps the state of each resource (its open lease, its freeze) and, to refuse
 * a lease id granted twice, each granted id with where it was granted, never
 * the entries themselves.
 */
export class MeaningCheck {
  private readonly open = new Map<string, Open | null>();
  private readonly granted = new Map<string, { seq: number; resource: string }>();
  private readonly frozen = new Map<string, { seq: number; expiresAtMs: number | undefined }>();
  /** Each resource's break-glass not used yet. */
  private readonly passes = new Map<string, Pass>();
  /** Each approval that approved a pass, so none approves two. */
  private readonly approvals = new PassApprovals();
  private lastGrant: { fence: number; seq: number } | undefined;
  private earliest = 0;
  /** The entry whose stamp is `earliest` (undefined: before a partial range). */
  private runStart: number | undefined;
  private previousTs: number | undefined;

  /**
   * With `promote` (each resource and the one before it, as the kernel's `--promote`): every
   * grant of a resource with a step before it names a commit that completed a hold there
   * earlier in the ledger, or is let through by a break-glass. Not on a partial range, whose
   * earlier holds are unknown.
   */
  private readonly promotions: PromotionRecord | undefined;

  constructor(
    private readonly partial: boolean,
    promote?: Map<string, string>,
  ) {
    this.promotions = promote?.size && !partial ? new PromotionRecord(promote) : undefined;
  }

  /** Throws a BundleError if `e`, after every entry checked before it, breaks the history. */
  check(e: LedgerEntry): void {
    const earliest = this.advanceClock(e);
    checkClockMs(e);
    const foreign = e.kind === 'grant' ? issuerProblem(e) : undefined;
    if (foreign)
      throw new BundleError(`entry ${e.seq}: grants ${e.leaseId} on ${e.resource}, but ${foreign}`);
    if (namesNoLease(e.kind)) return this.noLease(e);
    this.checkPolicy(e, earliest);
    const known = this.open.has(e.resource) || !this.partial;
    const current = this.open.get(e.resource) ?? null;
    if (e.kind === 'grant') return this.grant(e, current, earliest);
    this.follow(e, current, known, earliest);
  }

  /** The first stamp of `e`'s run of +1 stamps (its `earliest`), kept across entries. */
  private advanceClock(e: LedgerEntry): number {
    // A range's first run may have begun before the range: its clock is unknown there.
    if (this.previousTs === undefined || e.tsMs !== this.previousTs + 1) {
      const unknown = this.previousTs === undefined && this.partial;
      this.earliest = unknown ? -Infinity : e.tsMs;
      this.runStart = unknown ? undefined : e.seq;
    }
    this.previousTs = e.tsMs;
    return this.earliest;
  }

  /** A freeze, unfreeze or break-glass (given or withdrawn): names no lease, changes no lease. */
  private noLease(e: LedgerEntry): void {
    if (e.leaseId !== '' || e.fence !== 0) {
      throw new BundleError(
        `entry ${e.seq}: a ${e.kind} names no lease, but this one names ${e.leaseId} (fence ${e.fence})`,
      );
    }
    if (e.kind === 'break_glass') this.passes.set(e.resource, this.approvals.passOf(e));
    else if (e.kind === 'break_glass_withdrawn') withdraw(this.passes, e);
    else if (e.kind === 'freeze')
      this.frozen.set(e.resource, { seq: e.seq, expiresAtMs: e.expiresAtMs });
    else this.frozen.delete(e.resource);
  }

  /**
   * A grant is let in by the promotion order and no freeze, or by an unused break-glass;
   * every entry of a lease is recorded for the promotion order (it may complete a hold).
   */
  private checkPolicy(e: LedgerEntry, earliest: number): void {
    const freeze = this.frozen.get(e.resource);
    const pass = e.kind === 'grant' ? this.passes.get(e.resource) : undefined;
    // Each judged at the reading that would show a violation: the pass at the clock the grant
    // carries (else its own stamp, the latest it can have been), with the race's margin; the
    // freeze at the grant's clock, else the first stamp of its run (the earliest it can have been).
    const passAt = e.clockMs ?? e.tsMs;
    // A pass names the agent, or the run whose DIDs it covers (plane/run-pass.ts); used once.
    const covers = pass !== undefined && passCovers(pass.actorDid, e.actorDid);
    const passed = covers && passAt - CLOCK_RACE_MS < pass.expiresAtMs;
    if (covers) this.passes.delete(e.resource);
    const at = e.clockMs ?? earliest;
    const unpromoted =
      e.kind === 'grant'
        ? this.promotions?.missing(e.resource, e.deploy, e.promotedVia)
        : undefined;
    if (unpromoted !== undefined && !passed) {
      throw new BundleError(
        `entry ${e.seq}: grants ${e.leaseId} on ${e.resource} to ${e.actorDid}, but ${unpromoted}; no break-glass names it`,
      );
    }
    this.promotions?.add(e);
    if (
      e.kind === 'grant' &&
      freeze &&
      (freeze.expiresAtMs === undefined || at < freeze.expiresAtMs) &&
      !passed
    ) {
      throw new BundleError(frozenGrant(e, freeze, at, pass));
    }
  }

  /** A grant: no holder open, a fence above every earlier one, a lease id never granted, not expired. */
  private grant(e: LedgerEntry, current: Open | null, earliest: number): void {
    if (current) {
      throw new BundleError(
        `entry ${e.seq}: grants ${e.leaseId} on ${e.resource} while ${current.leaseId} (entry ${current.seq}) is still open: two holders at once`,
      );
    }
    const lastGrant = this.lastGrant;
    if (lastGrant && e.fence <= lastGrant.fence) {
      throw new BundleError(
        e.fence === lastGrant.fence
          ? `entry ${e.seq}: fence ${e.fence} was already issued at entry ${lastGrant.seq}`
          : `entry ${e.seq}: fence ${e.fence} is below fence ${lastGrant.fence} of entry ${lastGrant.seq}`,
      );
    }
    const twin = this.granted.get(e.leaseId);
    if (twin) {
      throw new BundleError(
        `${named(e)}: lease id ${e.leaseId} was already granted at entry ${twin.seq} (grant on ${twin.resource})`,
      );
    }
    if (e.expiresAtMs !== undefined && e.expiresAtMs <= earliest - CLOCK_RACE_MS) {
      throw new BundleError(
        `${named(e)}: expires at ${e.expiresAtMs}, already past when it was granted (no earlier than ${earliest})`,
      );
    }
    this.granted.set(e.leaseId, { seq: e.seq, resource: e.resource });
    this.lastGrant = { fence: e.fence, seq: e.seq };
    this.open.set(e.resource, {
      leaseId: e.leaseId,
      actorDid: e.actorDid,
      fence: e.fence,
      seq: e.seq,
      expiresAtMs: e.expiresAtMs,
      toldAt: e.seq,
      toldKind: e.kind,
    });
  }

  /** A renewal or an end (release, lapse, revoke): names the open lease, in time. */
  private follow(e: LedgerEntry, current: Open | null, known: boolean, earliest: number): void {
    if (current) {
      if (
        current.leaseId !== e.leaseId ||
        current.actorDid !== e.actorDid ||
        current.fence !== e.fence
      ) {
        throw new BundleError(
          `entry ${e.seq}: ${e.kind} names ${e.leaseId} (fence ${e.fence}) but the open lease on ${e.resource} is ${current.leaseId} (fence ${current.fence}, entry ${current.seq})`,
        );
      }
      checkTime(e, current, earliest, this.runStart);
    } else if (known) {
      throw new BundleError(
        `entry ${e.seq}: ${e.kind} of ${e.leaseId} on ${e.resource}, which has no open lease`,
      );
    }
    this.open.set(
      e.resource,
      e.kind === 'renew'
        ? {
            leaseId: e.leaseId,
            actorDid: e.actorDid,
            fence: e.fence,
            seq: current?.seq ?? e.seq,
            expiresAtMs: e.expiresAtMs ?? current?.expiresAtMs,
            toldAt: e.expiresAtMs === undefined && current ? current.toldAt : e.seq,
            toldKind: e.expiresAtMs === undefined && current ? current.toldKind : e.kind,
          }
        : null,
    );
  }
}

/** Only a lapse or a grant carries the clock that decided it, and never above its stamp. */
function checkClockMs(e: LedgerEntry): void {
  const clocked = e.kind === 'lapse' || e.kind === 'grant';
  if (e.clockMs !== undefined && (!clocked || e.clockMs > e.tsMs)) {
    throw new BundleError(
      clocked
        ? `${named(e)}: clockMs ${e.clockMs} is after its stamp ${e.tsMs} (a stamp never trails the clock)`
        : `${named(e)}: carries clockMs, which only a lapse or a grant does`,
    );
  }
}

/** A renewal before the told expiry, a lapse not before it (a release or revoke may come any time). */
function checkTime(
  e: LedgerEntry,
  current: Open,
  earliest: number,
  runStart: number | undefined,
): void {
  const told = current.expiresAtMs;
  if (told === undefined) return;
  const by = `entry ${current.toldAt} (${current.toldKind})`;
  if (e.kind === 'lapse') {
    const at = e.clockMs ?? earliest;
    if (at >= told) return;
    if (e.clockMs !== undefined || at === e.tsMs) {
      throw new BundleError(
        `${named(e)}: lapses at ${at}, ${told - at} ms before the expiry ${told} told at ${by}`,
      );
    }
    const run =
      runStart === undefined
        ? 'a run of +1 stamps that began before this range'
        : `a run of +1 stamps from ${earliest} (entry ${runStart})`;
    throw new BundleError(
      `${named(e)}: stamped ${e.tsMs} in ${run}, so it may have lapsed ${Number.isFinite(at) ? `${told - at} ms ` : ''}before the expiry ${told} told at ${by}; a lapse in a run must carry the clock that found it due (clockMs)`,
    );
  }
  if (e.kind === 'renew' && earliest - CLOCK_RACE_MS >= told) {
    throw new BundleError(
      `${named(e)}: renews at ${earliest} or later, after the lease expired at ${told} (told at ${by})`,
    );
  }
}
