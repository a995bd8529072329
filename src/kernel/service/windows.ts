import { readFileSync } from 'node:fs';
import type { Freeze } from '../rules/state.js';
import { causeText, LeaseGateError, type CauseOptions } from '../../errors.js';

/**
 * Recurring freezes (`lease-gate kernel --windows FILE`): a JSON file of windows,
 * each a cron-like schedule of when it starts (five fields: minute, hour, day of
 * month, month, day of week; `*`, numbers, `a-b`, `a,b` and `*\/n` steps), how
 * long it lasts, the time zone the schedule is read in (an IANA name, through
 * `Intl`), the resources it freezes (exact names, or a prefix ending in `*`) and
 * the reason waiters are told:
 *
 *   { "windows": [ { "name": "weekend", "schedule": "0 18 * * 5", "duration": "62h",
 *       "timeZone": "Europe/Berlin", "resources": ["lock:deploy/production"],
 *       "reason": "no deploys over the weekend" } ] }
 *
 * The file is checked whole at start; an error names the entry and the field. A
 * window in force refuses new holders like an operator's freeze (the holder keeps
 * renewing); it is configuration, not a ledger entry.
 */

export interface WindowSpec {
  name: string;
  schedule: string;
  duration: string;
  timeZone: string;
  resources: string[];
  reason: string;
}

export interface WindowState {
  name: string;
  schedule: string;
  timeZone: string;
  durationMs: number;
  resources: string[];
  reason: string;
  /** When the window in force began and ends, or null when it is not in force. */
  activeFromMs: number | null;
  activeUntilMs: number | null;
  /** The next start after now (within a year), or null. */
  nextStartMs: number | null;
}

export class WindowsError extends LeaseGateError<'windows'> {
  override name = 'WindowsError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'windows' });
  }
}

const MINUTE = 60_000;
const DAY = 86_400_000;
const MAX_DURATION_MS = 31 * DAY;
const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
] as const;

interface Schedule {
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Cron's rule: when both day fields are restricted, either may match. */
  dayOr: boolean;
}

interface Window extends WindowSpec {
  durationMs: number;
  parsed: Schedule;
  fields: (ms: number) => ZonedFields;
  /** The start in force, cached for the minute it was computed in. */
  cache?: { minute: number; start: number | null };
}

interface ZonedFields {
  minute: number;
  hour: number;
  day: number;
  month: number;
  weekday: number;
}

export class FreezeWindows {
  private constructor(private readonly windows: Window[]) {}

  static fromFile(file: string): FreezeWindows {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new WindowsError(`Cannot read the windows file ${file}: ${causeText(error)}`, {
        cause: error,
      });
    }
    return FreezeWindows.parse(text, file);
  }

  /** Checks every entry; the error names the file, the entry and the field. */
  static parse(text: string, source = 'windows'): FreezeWindows {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new WindowsError(`${source}: not JSON (${causeText(error)})`, { cause: error });
    }
    const list = (raw as { windows?: unknown } | null)?.windows;
    if (!Array.isArray(list) || list.length > 100) {
      throw new WindowsError(`${source}: expected {"windows": [ ... ]} with at most 100 entries`);
    }
    return new FreezeWindows(
      list.map((entry, i) => checkEntry(entry, `${source}: entry ${i + 1}`)),
    );
  }

  get size(): number {
    return this.windows.length;
  }

  /** The window in force on this resource at `now`, as a freeze (the one that ends last). */
  activeFor(resource: string, now: number): Freeze | undefined {
    let found: Freeze | undefined;
    for (const w of this.windows) {
      if (!covers(w, resource)) continue;
      const start = startInForce(w, now);
      if (start === null) continue;
      const untilMs = start + w.durationMs;
      if (!found || untilMs > (found.untilMs ?? 0)) {
        found = {
          reason: `${w.reason} (window ${w.name})`,
          untilMs,
          by: `window:${w.name}`,
          atMs: start,
        };
      }
    }
    return found;
  }

  /** Every window, with whether it is in force and when it next starts, for the console. */
  describe(now: number): WindowState[] {
    return this.windows.map((w) => {
      const start = startInForce(w, now);
      return {
        name: w.name,
        schedule: w.schedule,
        timeZone: w.timeZone,
        durationMs: w.durationMs,
        resources: w.resources,
        reason: w.reason,
        activeFromMs: start,
        activeUntilMs: start === null ? null : start + w.durationMs,
        nextStartMs: nextStart(w, now),
      };
    });
  }
}

function checkEntry(entry: unknown, where: string): Window {
  if (!entry || typeof entry !== 'object') throw new WindowsError(`${where}: expected an object`);
  const e = entry as Record<string, unknown>;
  const text = (field: string, max: number): string => {
    const value = e[field];
    if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
      throw new WindowsError(`${where}: ${field}: expected a string of 1 to ${max} characters`);
    }
    return value;
  };
  const name = text('name', 100);
  const at = `${where} ("${name.replace(/[^\x20-\x7e]/g, '?')}")`;
  const schedule = text('schedule', 200);
  const parsed = parseSchedule(schedule, `${at}: schedule`);
  const duration = text('duration', 20);
  const durationMs = parseWindowDuration(duration);
  if (durationMs === undefined) {
    throw new WindowsError(
      `${at}: duration: expected a duration such as '90m', '4h' or '2d' (at most 31d), not '${duration.slice(0, 20)}'`,
    );
  }
  const timeZone = text('timeZone', 100);
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      weekday: 'short',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
  } catch {
    throw new WindowsError(
      `${at}: timeZone: expected an IANA time zone such as 'Europe/Berlin' or 'UTC', not '${timeZone.slice(0, 60)}'`,
    );
  }
  const resources = e.resources;
  if (
    !Array.isArray(resources) ||
    resources.length === 0 ||
    resources.length > 100 ||
    !resources.every((r) => typeof r === 'string' && /^[\x21-\x7e]{1,256}$/.test(r))
  ) {
    throw new WindowsError(
      `${at}: resources: expected 1 to 100 resource names (printable, no spaces; a trailing * matches a prefix)`,
    );
  }
  const reason = text('reason', 1_000);
  return {
    name,
    schedule,
    duration,
    durationMs,
    timeZone,
    resources: resources as string[],
    reason,
    parsed,
    fields: zonedFields(format),
  };
}

function parseWindowDuration(raw: string): number | undefined {
  const match = /^(\d+)(m|h|d)$/.exec(raw.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * { m: MINUTE, h: 60 * MINUTE, d: DAY }[match[2] as 'm' | 'h' | 'd'];
  return ms > 0 && ms <= MAX_DURATION_MS ? ms : undefined;
}

function parseSchedule(schedule: string, where: string): Schedule {
  const parts = schedule.trim().split(/\s+/);
  if (parts.length !== 5) {
    throw new WindowsError(
      `${where}: expected five fields (minute hour day-of-month month day-of-week), as '0 18 * * 5'`,
    );
  }
  const sets = parts.map((part, i) => parseField(part, FIELDS[i]!, where));
  const weekdays = new Set([...sets[4]!].map((d) => d % 7));
  return {
    minutes: sets[0]!,
    hours: sets[1]!,
    days: sets[2]!,
    months: sets[3]!,
    weekdays,
    dayOr: parts[2] !== '*' && parts[4] !== '*',
  };
}

function parseField(part: string, field: (typeof FIELDS)[number], where: string): Set<number> {
  const values = new Set<number>();
  for (const item of part.split(',')) {
    const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
    const bad = () =>
      new WindowsError(
        `${where}: ${field.name} '${item.slice(0, 20)}': expected *, a number from ${field.min} to ${field.max}, a range a-b, a list a,b or a step */n`,
      );
    if (!match) throw bad();
    const from = match[1] === '*' ? field.min : Number(match[2]);
    const to = match[1] === '*' ? field.max : match[3] !== undefined ? Number(match[3]) : from;
    const step = match[4] !== undefined ? Number(match[4]) : 1;
    if (from < field.min || to > field.max || from > to || step < 1) throw bad();
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

function zonedFields(format: Intl.DateTimeFormat): (ms: number) => ZonedFields {
  const WEEKDAYS: Record<string, number> = {
    Sun: 0,
    Mon: 1,
    Tue: 2,
    Wed: 3,
    Thu: 4,
    Fri: 5,
    Sat: 6,
  };
  return (ms) => {
    const f: Record<string, string> = {};
    for (const p of format.formatToParts(ms)) f[p.type] = p.value;
    return {
      minute: Number(f.minute),
      hour: Number(f.hour) % 24,
      day: Number(f.day),
      month: Number(f.month),
      weekday: WEEKDAYS[f.weekday ?? ''] ?? 0,
    };
  };
}

function dayMatches(s: Schedule, f: ZonedFields): boolean {
  if (!s.months.has(f.month)) return false;
  if (s.dayOr) return s.days.has(f.day) || s.weekdays.has(f.weekday);
  return s.days.has(f.day) && s.weekdays.has(f.weekday);
}

const covers = (w: Window, resource: string) =>
  w.resources.some((r) => (r.endsWith('*') ? resource.startsWith(r.slice(0, -1)) : r === resource));

/**
 * The latest scheduled start in (now - duration, now], or null. Walks back from
 * now a day, an hour or a minute at a time (whichever field fails), so a window
 * costs at most a few thousand steps, once a minute (cached).
 */
function startInForce(w: Window, now: number): number | null {
  const minute = Math.floor(now / MINUTE);
  if (w.cache?.minute === minute) return w.cache.start;
  let t = minute * MINUTE;
  let start: number | null = null;
  for (let steps = 0; t > now - w.durationMs && steps < 20_000; steps += 1) {
    const f = w.fields(t);
    if (!dayMatches(w.parsed, f)) t -= (f.hour * 60 + f.minute + 1) * MINUTE;
    else if (!w.parsed.hours.has(f.hour)) t -= (f.minute + 1) * MINUTE;
    else if (!w.parsed.minutes.has(f.minute)) t -= MINUTE;
    else {
      start = t;
      break;
    }
  }
  w.cache = { minute, start };
  return start;
}

/** The next start after now, walking forward the same way, within a year. */
function nextStart(w: Window, now: number): number | null {
  let t = (Math.floor(now / MINUTE) + 1) * MINUTE;
  const end = now + 366 * DAY;
  for (let steps = 0; t <= end && steps < 50_000; steps += 1) {
    const f = w.fields(t);
    if (!dayMatches(w.parsed, f)) t += (24 * 60 - f.hour * 60 - f.minute) * MINUTE;
    else if (!w.parsed.hours.has(f.hour)) t += (60 - f.minute) * MINUTE;
    else if (!w.parsed.minutes.has(f.minute)) t += MINUTE;
    else return t;
  }
  return null;
}
