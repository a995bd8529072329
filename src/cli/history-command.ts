import * as z from 'zod/mini';
import { parseDuration } from '../gate/duration.js';
import { untrusted } from '../lease/escape.js';
import { eachLedgerPage } from '../ledger/remote.js';
import { entrySchema } from '../console/page/api.js';
import { holdsFrom, type TimelineEntry } from '../console/page/holds.js';
import {
  breakGlassWords,
  duration,
  freezeWords,
  holdEnded,
  utcStamp,
} from '../console/page/words.js';
import { EXIT, UsageError, parse, settingsFromFlags, type Output } from './options.js';
import { HISTORY } from './flags/plane.js';
import { optionsOf } from './flags/table.js';

/**
 * `lease-gate history`: what the kernel's ledger says happened, in the console's words
 * (its history table's), filtered by resource and time: each hold with how it ended,
 * each freeze, unfreeze and break-glass. Oldest first, like a log.
 */

const DAY_MS = 86_400_000;
const SINCE_FORM =
  "a duration back from now such as '90m', '4h' or '7d', or an ISO 8601 time with a zone such as '2026-12-24T18:00:00Z'";

/** A bundle item: the console's one schema of an entry (every kind, withdrawals too). */
const itemSchema = z.object({ entry: entrySchema });

export interface HistoryRow {
  atMs: number;
  resource: string;
  kind: 'hold' | 'freeze' | 'unfreeze' | 'break_glass';
  /** The holder, or the job a break-glass let through. */
  agent?: string;
  fence?: number;
  /** How long a hold lasted (until now, one still held). */
  durationMs?: number;
  /** The console's words: "released", "revoked by operator:ana: incident", "frozen by …". */
  what: string;
}

/** `--since`: a duration back from now (days too), or a time with its zone. */
export function parseSince(raw: string, nowMs: number): number | undefined {
  const days = /^(\d+)d$/.exec(raw.trim());
  if (days) return nowMs - Number(days[1]) * DAY_MS;
  const ms = parseDuration(raw);
  if (ms !== undefined) return nowMs - ms;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw))
    return undefined;
  const at = Date.parse(raw);
  return Number.isFinite(at) ? at : undefined;
}

/** The rows of `entries` (any order of pages, in ledger order) for `resource` since `sinceMs`. */
export function historyOf(
  entries: readonly TimelineEntry[],
  nowMs: number,
  sinceMs: number,
): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (const [resource, holds] of holdsFrom(entries)) {
    for (const hold of holds) {
      const end = hold.endMs ?? nowMs;
      // A hold that ended before the window is past; one still running or ending in it shows.
      if (end < sinceMs) continue;
      rows.push({
        atMs: hold.startMs,
        resource,
        kind: 'hold',
        agent: hold.holder,
        fence: hold.fence,
        durationMs: Math.max(0, end - hold.startMs),
        what: holdEnded(hold),
      });
    }
  }
  for (const e of entries) {
    if (e.tsMs < sinceMs) continue;
    if (e.kind === 'freeze' || e.kind === 'unfreeze')
      rows.push({ atMs: e.tsMs, resource: e.resource, kind: e.kind, what: freezeWords(e) });
    else if (e.kind === 'break_glass' || e.kind === 'break_glass_withdrawn')
      rows.push({
        atMs: e.tsMs,
        resource: e.resource,
        kind: 'break_glass',
        agent: e.actorDid,
        what: breakGlassWords(e),
      });
  }
  return rows.sort((a, b) => a.atMs - b.atMs);
}

/** One line of the text output; every plane text escaped for the terminal. */
export function describeRow(row: HistoryRow): string {
  const parts = [utcStamp(row.atMs), row.resource];
  if (row.kind === 'hold') {
    parts.push(
      row.agent ?? '',
      `fence ${row.fence}`,
      `for ${duration(row.durationMs ?? 0)}`,
      row.what,
    );
  } else if (row.kind === 'break_glass') parts.push(`${row.what} (let through ${row.agent})`);
  else parts.push(row.what);
  return untrusted(parts.join('  '), 4_000);
}

export async function history(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, optionsOf(HISTORY.flags));
  const nowMs = Date.now();
  const sinceMs = values.since === undefined ? 0 : parseSince(values.since, nowMs);
  if (sinceMs === undefined)
    throw new UsageError(
      `Invalid --since '${untrusted(values.since ?? '', 60)}'. Expected ${SINCE_FORM}.`,
    );
  // --resource filters; without it, every resource (the console's history).
  const settings = settingsFromFlags(values, env);
  const only = values.resource === undefined ? undefined : settings.resource;
  const key = settings.bearer ? await settings.bearer() : settings.key || undefined;
  const entries: TimelineEntry[] = [];
  await eachLedgerPage(settings.apiUrl, key, (page) => {
    for (const raw of page) {
      const parsed = itemSchema.safeParse(raw);
      if (!parsed.success) continue;
      const e = parsed.data.entry;
      // A renewal only matters to a hold whose grant is not in the ledger: every grant is.
      if (e.kind === 'renew' || (only !== undefined && e.resource !== only)) continue;
      entries.push(e);
    }
  });
  const rows = historyOf(entries, nowMs, sinceMs);
  if (values.json) io.out(JSON.stringify({ nowMs, sinceMs, rows }));
  else if (rows.length === 0) io.out('Nothing in the ledger matches.');
  else for (const row of rows) io.out(describeRow(row));
  return EXIT.done;
}
