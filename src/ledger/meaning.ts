import type { LedgerEntry } from './entry.js';
import { BundleError } from './verify-error.js';

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
 * it is never stamped before the clock that saw it due.)
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
 * `earliest`) and no later than its own stamp.
 */
export function checkMeaning(entries: readonly LedgerEntry[], partial: boolean): void {
  const meaning = new MeaningCheck(partial);
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
  private lastGrant: { fence: number; seq: number } | undefined;
  private earliest = 0;
  private previousTs: number | undefined;

  constructor(private readonly partial: boolean) {}

  /** Throws a BundleError if `e`, after every entry checked before it, breaks the history. */
  check(e: LedgerEntry): void {
    const { open, granted, frozen, partial } = this;
    // A range's first run may have begun before the range: its clock is unknown there.
    if (this.previousTs === undefined) this.earliest = partial ? -Infinity : e.tsMs;
    else if (e.tsMs !== this.previousTs + 1) this.earliest = e.tsMs;
    this.previousTs = e.tsMs;
    const earliest = this.earliest;
    if (e.kind === 'freeze' || e.kind === 'unfreeze') {
      if (e.leaseId !== '' || e.fence !== 0) {
        throw new BundleError(
          `entry ${e.seq}: a ${e.kind} names no lease, but this one names ${e.leaseId} (fence ${e.fence})`,
        );
      }
      if (e.kind === 'freeze') frozen.set(e.resource, { seq: e.seq, expiresAtMs: e.expiresAtMs });
      else frozen.delete(e.resource);
      return;
    }
    const freeze = frozen.get(e.resource);
    if (
      e.kind === 'grant' &&
      freeze &&
      (freeze.expiresAtMs === undefined || e.tsMs < freeze.expiresAtMs)
    ) {
      throw new BundleError(
        `entry ${e.seq}: grants ${e.leaseId} on ${e.resource} while it is frozen (entry ${freeze.seq})`,
      );
    }
    const known = open.has(e.resource) || !partial;
    const current = open.get(e.resource) ?? null;
    if (e.kind === 'grant') {
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
      const twin = granted.get(e.leaseId);
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
      granted.set(e.leaseId, { seq: e.seq, resource: e.resource });
      this.lastGrant = { fence: e.fence, seq: e.seq };
      open.set(e.resource, {
        leaseId: e.leaseId,
        actorDid: e.actorDid,
        fence: e.fence,
        seq: e.seq,
        expiresAtMs: e.expiresAtMs,
        toldAt: e.seq,
        toldKind: e.kind,
      });
      return;
    }
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
      checkTime(e, current, earliest);
    } else if (known) {
      throw new BundleError(
        `entry ${e.seq}: ${e.kind} of ${e.leaseId} on ${e.resource}, which has no open lease`,
      );
    }
    open.set(
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

/** A renewal before the told expiry, a lapse not before it (a release or revoke may come any time). */
function checkTime(e: LedgerEntry, current: Open, earliest: number): void {
  const told = current.expiresAtMs;
  if (told === undefined) return;
  const by = `entry ${current.toldAt} (${current.toldKind})`;
  if (e.kind === 'lapse' && e.tsMs < told) {
    throw new BundleError(
      `${named(e)}: lapses at ${e.tsMs}, ${told - e.tsMs} ms before the expiry ${told} told at ${by}`,
    );
  }
  if (e.kind === 'renew' && earliest - CLOCK_RACE_MS >= told) {
    throw new BundleError(
      `${named(e)}: renews at ${earliest} or later, after the lease expired at ${told} (told at ${by})`,
    );
  }
}
