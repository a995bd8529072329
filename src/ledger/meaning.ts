import type { LedgerEntry } from './entry.js';
import { BundleError } from './verify-error.js';

interface Open {
  leaseId: string;
  actorDid: string;
  fence: number;
  seq: number;
}

/**
 * Checks that the entries tell a valid history: per resource, a grant and its
 * end alternate, and every renewal or end names the open lease (its id, holder
 * and fence); grant fences strictly increase across the log. On a partial
 * range, a resource's state before its first entry in the range is unknown,
 * and the same rules hold from there on. Freezes and unfreezes name no lease
 * (empty id, fence 0) and leave the open lease alone, but no grant may fall
 * inside a freeze: between a freeze and its unfreeze or the end it named.
 */
export function checkMeaning(entries: readonly LedgerEntry[], partial: boolean): void {
  const open = new Map<string, Open | null>();
  const frozen = new Map<string, LedgerEntry>();
  let lastGrant: { fence: number; seq: number } | undefined;
  for (const e of entries) {
    if (e.kind === 'freeze' || e.kind === 'unfreeze') {
      if (e.leaseId !== '' || e.fence !== 0) {
        throw new BundleError(
          `entry ${e.seq}: a ${e.kind} names no lease, but this one names ${e.leaseId} (fence ${e.fence})`,
        );
      }
      if (e.kind === 'freeze') frozen.set(e.resource, e);
      else frozen.delete(e.resource);
      continue;
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
      if (lastGrant && e.fence <= lastGrant.fence) {
        throw new BundleError(
          e.fence === lastGrant.fence
            ? `entry ${e.seq}: fence ${e.fence} was already issued at entry ${lastGrant.seq}`
            : `entry ${e.seq}: fence ${e.fence} is below fence ${lastGrant.fence} of entry ${lastGrant.seq}`,
        );
      }
      lastGrant = { fence: e.fence, seq: e.seq };
      open.set(e.resource, {
        leaseId: e.leaseId,
        actorDid: e.actorDid,
        fence: e.fence,
        seq: e.seq,
      });
      continue;
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
    } else if (known) {
      throw new BundleError(
        `entry ${e.seq}: ${e.kind} of ${e.leaseId} on ${e.resource}, which has no open lease`,
      );
    }
    open.set(
      e.resource,
      e.kind === 'renew'
        ? { leaseId: e.leaseId, actorDid: e.actorDid, fence: e.fence, seq: current?.seq ?? e.seq }
        : null,
    );
  }
}
