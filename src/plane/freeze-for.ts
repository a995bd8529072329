/**
 * How long a freeze or a break-glass lasts, as the CLI's `--for` and the console's field take
 * it: `90s`, `90m`, `4h`, `3d` (a freeze may outlast any job, so days too). Pure, so the
 * browser's console and the CLI read one form the same way.
 */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const DAY_MS = UNIT_MS.d;
export const MAX_FREEZE_MS = 366 * DAY_MS;
export const FREEZE_FOR_FORM = "a duration such as '90m', '4h' or '3d' (at most 366d)";

/** Milliseconds for `90m`, `4h`, `3d`, `500ms`, or plain seconds; undefined when not one of those. */
export function parseForDuration(raw: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) return undefined;
  const ms = Math.round(Number(match[1]) * UNIT_MS[(match[2] ?? 's') as keyof typeof UNIT_MS]);
  return Number.isFinite(ms) ? ms : undefined;
}

/** `--for` of a freeze: more than nothing, at most 366 days. */
export function parseFreezeFor(raw: string): number | undefined {
  const ms = parseForDuration(raw);
  return ms !== undefined && ms > 0 && ms <= MAX_FREEZE_MS ? ms : undefined;
}
