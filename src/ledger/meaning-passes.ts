import { passCovers } from '../plane/run-pass.js';
import type { LedgerEntry } from './entry.js';
import { BundleError } from './verify-error.js';

/** A break-glass not used yet, as verify keeps it per resource. */
export interface Pass {
  seq: number;
  actorDid: string;
  expiresAtMs: number;
}

/**
 * verify's reading of break-glass entries (meaning.ts): what a pass must name, and that one
 * approval approves one pass. An OIDC approval names its run and attempt (`approval`); a
 * second pass approved by the same one is refused, as the kernel refuses it (one token of a
 * team that may approve would otherwise let any number of jobs through).
 */
export class PassApprovals {
  private readonly seen = new Map<string, number>();

  /** A break-glass entry says why, who opened it and until when; its approver is someone else. */
  passOf(e: LedgerEntry): Pass {
    if (!e.reason || !e.by || e.expiresAtMs === undefined) {
      throw new BundleError(
        `entry ${e.seq}: a break_glass must name its reason, who opened it (by) and its end (expiresAtMs)`,
      );
    }
    if (e.approvedBy !== undefined && e.approvedBy === e.by) {
      throw new BundleError(
        `entry ${e.seq}: a break_glass approved by ${e.approvedBy}, who opened it; the approver must be another operator`,
      );
    }
    if (e.approval !== undefined) {
      if (e.approvedBy === undefined) {
        throw new BundleError(
          `entry ${e.seq}: a break_glass names an approval (${e.approval}) but no approver (approvedBy)`,
        );
      }
      const first = this.seen.get(e.approval);
      if (first !== undefined) {
        throw new BundleError(
          `entry ${e.seq}: a break_glass approved by ${e.approval}, which already approved the break_glass of entry ${first}; one approval approves one pass`,
        );
      }
      this.seen.set(e.approval, e.seq);
    }
    return { seq: e.seq, actorDid: e.actorDid, expiresAtMs: e.expiresAtMs };
  }
}

/**
 * A withdrawal (`break_glass_withdrawn`) names who withdrew it and the agent of the pass it
 * ends: that pass is gone, as it is for the kernel's replay (rules/break-glass.ts).
 */
export function withdraw(passes: Map<string, Pass>, e: LedgerEntry): void {
  if (!e.by) {
    throw new BundleError(`entry ${e.seq}: a break_glass_withdrawn must name who withdrew it (by)`);
  }
  if (passes.get(e.resource)?.actorDid === e.actorDid) passes.delete(e.resource);
}

/** Why a grant inside a freeze is refused: no pass for it, or its pass ended before it. */
export function frozenGrant(
  e: LedgerEntry,
  freeze: { seq: number; expiresAtMs: number | undefined },
  at: number,
  pass: Pass | undefined,
): string {
  const grants = `entry ${e.seq}: grants ${e.leaseId} on ${e.resource}`;
  const when =
    freeze.expiresAtMs === undefined || e.clockMs !== undefined || at === e.tsMs
      ? 'while it is frozen'
      : `stamped ${e.tsMs} in a run of +1 stamps ${Number.isFinite(at) ? `from ${at}` : 'that began before this range'}, so maybe before the freeze's end ${freeze.expiresAtMs} (a grant in a run must carry its clock, clockMs)`;
  if (pass && passCovers(pass.actorDid, e.actorDid)) {
    return `${grants} ${when} (entry ${freeze.seq}); the break-glass of entry ${pass.seq} ended at ${pass.expiresAtMs}, and the grant is stamped ${e.tsMs}${e.clockMs !== undefined ? ` (clock ${e.clockMs})` : ' with no clock of its own (clockMs)'}`;
  }
  return `${grants} ${when} (entry ${freeze.seq}) and no break-glass names ${e.actorDid}`;
}
