import type { Hold, TimelineEntry } from './holds.js';

/**
 * The console's words for a queue and a history, pure (no DOM): the page draws them and
 * `lease-gate status` / `lease-gate history` print them, so a terminal and the console
 * say the same thing of the same ledger entry or waiter.
 */

/** "1 h 4 min", "12.3 s": a duration for people. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0 s';
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  // A whole number of minutes or hours reads as such: a window "for 45 min", not "45 min 0 s".
  const rest = (n: number, unit: string) => (n ? ` ${n} ${unit}` : '');
  if (minutes < 60) return `${minutes} min${rest(Math.floor((ms % 60_000) / 1000), 's')}`;
  return `${Math.floor(minutes / 60)} h${rest(minutes % 60, 'min')}`;
}

/** "2026-12-03 14:05:09 UTC": the exact time. */
export const utcStamp = (ms: number) =>
  `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;

/** 1 → "1st", 2 → "2nd", 3 → "3rd", 11 → "11th". */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** A waiter's place, 0 being next: "1st in line". */
export const placeInLine = (position: number) => `${ordinal(position + 1)} in line`;

/** "waiting 3 min 2 s": how long a waiter has waited. */
export const waitingFor = (ms: number) => `waiting ${duration(ms)}`;

/** "held for 3 min": how long the holder has held. */
export const heldFor = (ms: number) => `held for ${duration(ms)}`;

/** The kernel's estimate of a waiter's wait: "about 6 min at recent hold times". */
export function etaWords(etaMs: number): string {
  return etaMs <= 0
    ? 'any moment now at recent hold times'
    : `about ${duration(etaMs)} at recent hold times`;
}

export const ENDED: Record<Hold['end'], string> = {
  release: 'released',
  lapse: 'lapsed (stopped renewing)',
  // Only the kernel's admin key may revoke; an entry without `by` (no name given) names no operator.
  revoke: 'revoked by an operator',
  open: 'still held',
};

/** How a hold ended: "released", "revoked by operator:ana: incident 42". */
export function holdEnded(hold: Pick<Hold, 'end' | 'by' | 'reason'>): string {
  const how = hold.end === 'revoke' && hold.by ? `revoked by ${hold.by}` : ENDED[hold.end];
  return `${how}${hold.reason ? `: ${hold.reason}` : ''}`;
}

/** A freeze or an unfreeze: "frozen by operator:ana: release week", "unfrozen (window ended)". */
export function freezeWords(e: Pick<TimelineEntry, 'kind' | 'actorDid' | 'reason'>): string {
  // An unfreeze an operator made names them; one that came at the freeze's end says so.
  const what =
    e.kind === 'freeze'
      ? `frozen by ${e.actorDid}`
      : e.reason === 'unfrozen by an operator'
        ? `unfrozen by ${e.actorDid}`
        : `unfrozen (${e.reason ?? ''})`;
  const reason = e.kind === 'freeze' && e.reason ? `: ${e.reason}` : '';
  return `${what}${reason}`;
}

/** A break-glass: who let a job through once, who approved it, why. */
export function breakGlassWords(
  e: Pick<TimelineEntry, 'kind' | 'by' | 'approvedBy' | 'reason'>,
): string {
  if (e.kind === 'break_glass_withdrawn')
    return `break-glass withdrawn by ${e.by ?? 'an operator'}: ${e.reason ?? ''}`;
  const approved = e.approvedBy ? `, approved by ${e.approvedBy}` : '';
  // Words, not an emoji: a terminal or a page without an emoji font shows them too.
  return `BREAK-GLASS by ${e.by ?? 'an operator'}${approved}: ${e.reason ?? ''}`;
}
