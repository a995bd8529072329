const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** The one form every duration input accepts, for error messages. */
export const DURATION_FORM =
  "a duration such as '500ms', '90s', '15m', '1h' or plain seconds ('0' asks once)";

/** At most a day: GitHub stops any job long before that. */
const MAX_DURATION_MS = 24 * 3_600_000;

/** Parses `500ms`, `90s`, `15m`, `1h` or plain seconds; undefined when not one of those. */
export function parseDuration(raw: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
  if (!match) return undefined;
  const unit = (match[2] ?? 's') as keyof typeof UNIT_MS;
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
  return ms <= MAX_DURATION_MS ? ms : undefined;
}

/** `1m 30s`-style text for logs. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const totalSeconds = Math.round(ms / 1_000);
  const hours = Math.floor(totalSeconds / 3_600);
  const minutes = Math.floor((totalSeconds % 3_600) / 60);
  const seconds = totalSeconds % 60;
  const parts = [hours && `${hours}h`, minutes && `${minutes}m`, seconds && `${seconds}s`];
  return parts.filter(Boolean).join(' ') || '0s';
}
