import type { LeaseAnswer } from '../src/plane/schema.js';

/** What the plane answered to the gate's `Prefer: wait` (RFC 7240), counted from its answers. */
export interface PreferLog {
  leaseRequests: number;
  /** Answers that carried `Preference-Applied`: the plane held the ask. */
  applied: number;
}

/** Below the plane client's 10 s request timeout, as the gate itself chooses. */
export const BENCH_PREFER_WAIT_S = 8;

export const newPreferLog = (): PreferLog => ({ leaseRequests: 0, applied: 0 });

export function countPrefer(log: PreferLog, answer: LeaseAnswer): void {
  log.leaseRequests += 1;
  if ((answer.kind === 'granted' || answer.kind === 'held') && answer.preferenceApplied) {
    log.applied += 1;
  }
}

/** The row's name says which behaviour the kernel gave, as its headers told. */
export function blockingLabel(log: PreferLog): string {
  if (log.applied === 0)
    return 'gate, Prefer: wait sent; kernel ignored it, so this is the waitMs fallback';
  return `gate, blocking acquire (Prefer: wait applied to ${log.applied} of ${log.leaseRequests} asks)`;
}
