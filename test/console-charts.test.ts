import { describe, expect, it } from 'vitest';
import { HANDOVER_MS, chartData, dayStart } from '../src/console/page/chart-data.js';
import type { TimelineEntry } from '../src/console/page/holds.js';

/**
 * The console charts' numbers (#57 item 5), from ledger entries as the page reads them:
 * holds, waits bounded by what the ledger records, deploys per day in the page's zone,
 * freezes as spans and break-glasses as marks. Drawing is tested in Chromium
 * (test/browser/console-charts.spec.ts).
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Monday 2026-12-07 12:00 UTC. */
const NOW = Date.UTC(2026, 11, 7, 12);
const UTC = () => 0;
const P = 'lock:deploy/production';
const M = 'lock:db/migrations';

let fences = 0;
const e = (
  tsMs: number,
  kind: TimelineEntry['kind'],
  actorDid: string,
  leaseId = '',
  more: Partial<TimelineEntry> = {},
  resource = P,
): TimelineEntry => ({ tsMs, kind, resource, actorDid, leaseId, fence: (fences += 1), ...more });

/** A grant and its release on `resource`. */
const hold = (fromMs: number, toMs: number, who: string, resource = P): TimelineEntry[] => [
  e(fromMs, 'grant', who, `l-${who}-${fromMs}`, {}, resource),
  e(toMs, 'release', who, `l-${who}-${fromMs}`, {}, resource),
];

describe('chartData', () => {
  it('gives each hold its time, and each grant its wait: 0 on a free resource, at most the hold before it at a handover', () => {
    const entries = [
      ...hold(NOW - 10 * HOUR, NOW - 9 * HOUR, 'a'),
      // Granted 2 s after a's release: it was queued behind a, for at most a's hour.
      ...hold(NOW - 9 * HOUR + 2_000, NOW - 8 * HOUR, 'b'),
      // Long after: the resource was free.
      ...hold(NOW - 2 * HOUR, NOW - HOUR, 'c'),
    ];
    const [chart] = chartData(entries, { nowMs: NOW, spanMs: DAY, zoneOffsetMin: UTC });
    expect(chart!.holds.map((p) => [p.holder, p.ms])).toEqual([
      ['a', HOUR],
      ['b', HOUR - 2_000],
      ['c', HOUR],
    ]);
    expect(chart!.waits.map((p) => [p.holder, p.ms])).toEqual([
      ['a', 0],
      ['b', HOUR + 2_000],
      ['c', 0],
    ]);
    expect(chart!.maxMs).toBe(HOUR + 2_000);
  });

  it('counts a grant past HANDOVER_MS after the last hold as unqueued', () => {
    const entries = [
      ...hold(NOW - 3 * HOUR, NOW - 2 * HOUR, 'a'),
      ...hold(NOW - 2 * HOUR + HANDOVER_MS + 1, NOW - HOUR, 'b'),
    ];
    const [chart] = chartData(entries, { nowMs: NOW, spanMs: DAY, zoneOffsetMin: UTC });
    expect(chart!.waits.map((p) => p.ms)).toEqual([0, 0]);
  });

  it('keeps to the span: a hold that ended before it is left out, an open one runs to now', () => {
    const entries = [
      ...hold(NOW - 3 * DAY, NOW - 3 * DAY + HOUR, 'old'),
      e(NOW - 30 * MIN, 'grant', 'open', 'l-open'),
    ];
    const [day] = chartData(entries, { nowMs: NOW, spanMs: DAY, zoneOffsetMin: UTC });
    expect(day!.holds.map((p) => [p.holder, p.ms])).toEqual([['open', 30 * MIN]]);
    const [week] = chartData(entries, { nowMs: NOW, spanMs: 7 * DAY, zoneOffsetMin: UTC });
    expect(week!.holds.map((p) => p.holder)).toEqual(['old', 'open']);
  });

  it('counts deploys per day of the zone, the last seven days, today last', () => {
    const entries = [
      ...hold(NOW - 6 * DAY - 13 * HOUR, NOW - 6 * DAY - 12 * HOUR, 'too-old'),
      ...hold(NOW - 6 * DAY, NOW - 6 * DAY + MIN, 'a'),
      ...hold(NOW - DAY, NOW - DAY + MIN, 'b'),
      ...hold(NOW - 11 * HOUR, NOW - 11 * HOUR + MIN, 'c'),
      ...hold(NOW - HOUR, NOW - HOUR + MIN, 'd'),
    ];
    const [chart] = chartData(entries, { nowMs: NOW, spanMs: 7 * DAY, zoneOffsetMin: UTC });
    expect(chart!.deploysPerDay.map((d) => d.count)).toEqual([1, 0, 0, 0, 0, 1, 2]);
    expect(chart!.deploysPerDay.at(-1)!.dayMs).toBe(Date.UTC(2026, 11, 7));
    // At UTC+13 it is already tomorrow: c falls on the day before, d (00:00 there) on today.
    const east = chartData(entries, { nowMs: NOW, spanMs: 7 * DAY, zoneOffsetMin: () => 13 * 60 });
    expect(east[0]!.deploysPerDay.map((d) => d.count)).toEqual([1, 0, 0, 0, 0, 2, 1]);
  });

  it('does not count a hold whose grant is older than the entries read as a deploy or a wait', () => {
    const entries = [e(NOW - HOUR, 'release', 'a', 'l-a'), ...hold(NOW - HOUR + 1_000, NOW, 'b')];
    const [chart] = chartData(entries, { nowMs: NOW, spanMs: DAY, zoneOffsetMin: UTC });
    expect(chart!.holds.map((p) => p.holder)).toEqual(['a', 'b']);
    expect(chart!.waits.map((p) => p.holder)).toEqual(['b']);
    expect(chart!.deploysPerDay.at(-1)!.count).toBe(1);
  });

  it('shades freezes to their unfreeze, their end or now, and marks break-glasses with who and why', () => {
    const entries = [
      e(NOW - 5 * HOUR, 'freeze', 'operator:ops', '', { reason: 'incident 7' }),
      e(NOW - 4 * HOUR, 'break_glass', 'did:web:hotfix', '', {
        by: 'operator:alice',
        reason: 'CVE',
      }),
      e(NOW - 3 * HOUR, 'unfreeze', 'operator:ops'),
      e(NOW - 2 * HOUR, 'freeze', 'operator:ops', '', { reason: 'train', expiresAtMs: NOW - HOUR }),
      e(NOW - 30 * MIN, 'freeze', 'operator:ops', '', { reason: 'still' }, M),
    ];
    const charts = chartData(entries, { nowMs: NOW, spanMs: DAY, zoneOffsetMin: UTC });
    const byName = new Map(charts.map((c) => [c.resource, c]));
    expect(byName.get(P)!.freezes).toEqual([
      { fromMs: NOW - 5 * HOUR, toMs: NOW - 3 * HOUR, text: 'frozen: incident 7' },
      { fromMs: NOW - 2 * HOUR, toMs: NOW - HOUR, text: 'frozen: train' },
    ]);
    expect(byName.get(P)!.breakGlass).toEqual([
      { atMs: NOW - 4 * HOUR, text: 'break-glass for did:web:hotfix by operator:alice: CVE' },
    ]);
    expect(byName.get(M)!.freezes).toEqual([
      { fromMs: NOW - 30 * MIN, toMs: NOW, text: 'frozen: still' },
    ]);
  });

  it('lists the busiest resources first, at most `most`, and none with nothing to draw', () => {
    const entries = [
      ...hold(NOW - 3 * HOUR, NOW - 2 * HOUR, 'a', M),
      ...hold(NOW - 2 * HOUR, NOW - HOUR, 'b'),
      ...hold(NOW - HOUR, NOW - 30 * MIN, 'c'),
      ...hold(NOW - 9 * DAY, NOW - 9 * DAY + MIN, 'gone', 'lock:old'),
    ];
    const charts = chartData(entries, { nowMs: NOW, spanMs: DAY, zoneOffsetMin: UTC });
    expect(charts.map((c) => c.resource)).toEqual([P, M]);
    expect(chartData(entries, { nowMs: NOW, spanMs: DAY, most: 1 }).map((c) => c.resource)).toEqual(
      [P],
    );
  });
});

describe('dayStart', () => {
  it('is the zone’s midnight at or before the time', () => {
    expect(dayStart(NOW, UTC)).toBe(Date.UTC(2026, 11, 7));
    expect(dayStart(Date.UTC(2026, 11, 7, 3), () => 5 * 60 + 30)).toBe(
      Date.UTC(2026, 11, 6, 18, 30),
    );
  });
});
