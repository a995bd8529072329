/** Ledger entries → holds per resource: pure, shared by the console and the playground. */
import { namesNoLease, type EntryKind } from '../../plane/entry-kinds.js';

/** The fields of a ledger entry the timeline draws (the kernel's and the playground's). */
export interface TimelineEntry {
  tsMs: number;
  kind: EntryKind;
  resource: string;
  actorDid: string;
  leaseId: string;
  fence: number;
  reason?: string | undefined;
  /** Who revoked (a revoke whose operator gave a name), or opened a break-glass: `operator:NAME`. */
  by?: string | undefined;
  /** The second operator who approved a break-glass. */
  approvedBy?: string | undefined;
  /** A break-glass's end. */
  expiresAtMs?: number | undefined;
  /** What a grant's holder deploys (repository, commit, run...), as the ledger recorded it. */
  deploy?: Record<string, string | number | undefined> | undefined;
  /** A grant past a promotion step by descent: the completed commit that contains this one. */
  promotedVia?: string | undefined;
}

export type HoldEnd = 'release' | 'lapse' | 'revoke' | 'open';

export interface Hold {
  resource: string;
  holder: string;
  leaseId: string;
  fence: number;
  startMs: number;
  endMs: number | null;
  end: HoldEnd;
  reason?: string | undefined;
  /** Who revoked it, when the revoke named an operator. */
  by?: string | undefined;
  deploy?: TimelineEntry['deploy'];
  promotedVia?: string | undefined;
}

/**
 * Pairs each grant with the release, lapse or revocation of the same lease.
 * A lease whose end is not in the entries is still open; an end whose grant
 * came before the first entry shown starts at the earliest time known.
 */
export function holdsFrom(entries: readonly TimelineEntry[]): Map<string, Hold[]> {
  const byResource = new Map<string, Hold[]>();
  const open = new Map<string, Hold>();
  const first = entries[0]?.tsMs ?? 0;
  for (const e of entries) {
    // A freeze or a break-glass names no lease: it is listed beside the holds, not as one.
    if (namesNoLease(e.kind)) continue;
    const holds = byResource.get(e.resource) ?? [];
    byResource.set(e.resource, holds);
    if (e.kind === 'grant' || e.kind === 'renew') {
      // A renewal only matters when its grant came before the entries shown.
      if (open.has(e.leaseId)) continue;
      const hold: Hold = {
        resource: e.resource,
        holder: e.actorDid,
        leaseId: e.leaseId,
        fence: e.fence,
        startMs: e.kind === 'grant' ? e.tsMs : first,
        endMs: null,
        end: 'open',
        ...(e.deploy ? { deploy: e.deploy } : {}),
        ...(e.kind === 'grant' && e.promotedVia ? { promotedVia: e.promotedVia } : {}),
      };
      holds.push(hold);
      open.set(e.leaseId, hold);
      continue;
    }
    const hold = open.get(e.leaseId);
    open.delete(e.leaseId);
    if (hold) {
      Object.assign(hold, { endMs: e.tsMs, end: e.kind, reason: e.reason, by: e.by });
    } else {
      holds.unshift({
        resource: e.resource,
        holder: e.actorDid,
        leaseId: e.leaseId,
        fence: e.fence,
        startMs: first,
        endMs: e.tsMs,
        end: e.kind,
        reason: e.reason,
        by: e.by,
      });
    }
  }
  return byResource;
}
