import { holdsFrom, type TimelineEntry } from './holds.js';

/**
 * The console's charts' numbers, from the ledger entries the page already reads: per
 * resource, each hold's time and each grant's wait over a span (a day, a week), deploys
 * per day, and the freezes and break-glasses to mark. Pure: charts.ts draws them.
 *
 * The ledger records when a lease was granted, not when its holder first asked, so a wait
 * is bounded from what it does record: a grant that came at a handover (within
 * HANDOVER_MS of the previous hold's end) waited at most since that hold began, and this
 * bound is what is drawn; a grant on a free resource waited nothing. The kernel's
 * /metrics (docs/metrics) measures waits exactly; the charts are what the ledger proves.
 */

/** A grant this soon after the previous hold ended was queued behind it (a handover). */
export const HANDOVER_MS = 15_000;
const DAY_MS = 86_400_000;

export interface ChartPoint {
  atMs: number;
  ms: number;
  holder: string;
}

export interface ChartSpan {
  fromMs: number;
  toMs: number;
  text: string;
}

export interface ResourceChart {
  resource: string;
  /** Each hold that ended in the span (or is still open), at its start: how long it was held. */
  holds: ChartPoint[];
  /** Each grant in the span: how long it waited at most (0: the resource was free). */
  waits: ChartPoint[];
  /** Grants per day, oldest first, the last `days` days of the zone (today last). */
  deploysPerDay: Array<{ dayMs: number; count: number }>;
  freezes: ChartSpan[];
  breakGlass: Array<{ atMs: number; text: string }>;
  /** The longest hold or wait drawn, for a shared scale. */
  maxMs: number;
}

export interface ChartOptions {
  nowMs: number;
  spanMs: number;
  /** Days of deploys counted (7: a week). */
  days?: number;
  /** Minutes east of UTC at a time (the page's zone): a day starts at local midnight. */
  zoneOffsetMin?: (ms: number) => number;
  /** At most this many resources, the busiest first. */
  most?: number;
}

const browserZone = (ms: number) => -new Date(ms).getTimezoneOffset();

/** Local midnight at or before `ms`. */
export function dayStart(ms: number, zoneOffsetMin: (ms: number) => number = browserZone): number {
  const shift = zoneOffsetMin(ms) * 60_000;
  return Math.floor((ms + shift) / DAY_MS) * DAY_MS - shift;
}

export function chartData(entries: readonly TimelineEntry[], o: ChartOptions): ResourceChart[] {
  const { nowMs, spanMs } = o;
  const fromMs = nowMs - spanMs;
  const zone = o.zoneOffsetMin ?? browserZone;
  const days = o.days ?? 7;
  const today = dayStart(nowMs, zone);
  const firstDay = today - (days - 1) * DAY_MS;
  const charts = new Map<string, ResourceChart>();
  // A hold whose grant is older than the entries read is not a deploy (or a wait) seen.
  const grants = new Set(entries.filter((e) => e.kind === 'grant').map((e) => e.leaseId));
  const chartOf = (resource: string) => {
    let chart = charts.get(resource);
    if (!chart) {
      chart = {
        resource,
        holds: [],
        waits: [],
        deploysPerDay: [],
        freezes: [],
        breakGlass: [],
        maxMs: 0,
      };
      for (let d = 0; d < days; d += 1)
        chart.deploysPerDay.push({ dayMs: firstDay + d * DAY_MS, count: 0 });
      charts.set(resource, chart);
    }
    return chart;
  };
  for (const [resource, holds] of holdsFrom(entries)) {
    const chart = chartOf(resource);
    let before: { startMs: number; endMs: number } | undefined;
    for (const hold of [...holds].sort((a, b) => a.startMs - b.startMs)) {
      const endMs = Math.min(hold.endMs ?? nowMs, nowMs);
      const granted = grants.has(hold.leaseId);
      if (endMs >= fromMs && hold.startMs <= nowMs)
        chart.holds.push({ atMs: hold.startMs, ms: endMs - hold.startMs, holder: hold.holder });
      if (granted && hold.startMs >= fromMs && hold.startMs <= nowMs) {
        const queued = before && hold.startMs - before.endMs <= HANDOVER_MS;
        const ms = queued ? hold.startMs - before!.startMs : 0;
        chart.waits.push({ atMs: hold.startMs, ms, holder: hold.holder });
      }
      if (granted && hold.startMs >= firstDay) {
        const day = Math.floor((dayStart(hold.startMs, zone) - firstDay) / DAY_MS);
        const bucket = chart.deploysPerDay[day];
        if (bucket) bucket.count += 1;
      }
      before = { startMs: hold.startMs, endMs };
    }
  }
  markFreezes(entries, { fromMs, nowMs }, chartOf);
  for (const chart of charts.values()) {
    chart.maxMs = Math.max(0, ...chart.holds.map((p) => p.ms), ...chart.waits.map((p) => p.ms));
  }
  const busy = (c: ResourceChart) => c.holds.length + c.freezes.length + c.breakGlass.length;
  return [...charts.values()]
    .filter((c) => busy(c) > 0 || c.deploysPerDay.some((d) => d.count > 0))
    .sort((a, b) => busy(b) - busy(a) || a.resource.localeCompare(b.resource))
    .slice(0, o.most ?? 12);
}

/** Freezes as spans (to their unfreeze, their named end, or now) and break-glasses as marks. */
function markFreezes(
  entries: readonly TimelineEntry[],
  span: { fromMs: number; nowMs: number },
  chartOf: (resource: string) => ResourceChart,
): void {
  const open = new Map<string, { atMs: number; text: string; untilMs: number | undefined }>();
  const close = (resource: string, endMs: number) => {
    const freeze = open.get(resource);
    if (!freeze) return;
    open.delete(resource);
    const toMs = Math.min(endMs, freeze.untilMs ?? endMs, span.nowMs);
    if (toMs >= span.fromMs)
      chartOf(resource).freezes.push({
        fromMs: Math.max(freeze.atMs, span.fromMs),
        toMs,
        text: freeze.text,
      });
  };
  for (const e of entries) {
    if (e.kind === 'freeze') {
      close(e.resource, e.tsMs);
      open.set(e.resource, {
        atMs: e.tsMs,
        text: `frozen: ${e.reason ?? ''}`,
        untilMs: e.expiresAtMs,
      });
    } else if (e.kind === 'unfreeze') {
      close(e.resource, e.tsMs);
    } else if (e.kind === 'break_glass' && e.tsMs >= span.fromMs && e.tsMs <= span.nowMs) {
      const text = `break-glass for ${e.actorDid} by ${e.by ?? 'an operator'}${e.reason ? `: ${e.reason}` : ''}`;
      chartOf(e.resource).breakGlass.push({ atMs: e.tsMs, text });
    }
  }
  for (const resource of [...open.keys()]) close(resource, span.nowMs);
}
