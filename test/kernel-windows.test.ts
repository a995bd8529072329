import { describe, expect, it } from 'vitest';
import { LeaseKernel } from '../src/kernel/rules/core.js';
import { FreezeWindows } from '../src/kernel/service/windows.js';
import { A, R } from './support/names.js';
import { weekendWindow as entry } from './support/windows.js';

/** Recurring freeze windows: checked at start, read in their time zone, applied by the rules. */

const parse = (...entries: unknown[]) =>
  FreezeWindows.parse(JSON.stringify({ windows: entries }), 'w.json');

describe('freeze windows', () => {
  it('names the entry and the field of every mistake', () => {
    expect(() => parse(entry(), entry({ schedule: '0 25 * * 5' }))).toThrow(
      `w.json: entry 2 ("weekend"): schedule: hour '25': expected *, a number from 0 to 23`,
    );
    expect(() => parse(entry({ timeZone: 'Mars/Olympus' }))).toThrow(
      /entry 1 \("weekend"\): timeZone: expected an IANA time zone/,
    );
    expect(() => parse(entry({ duration: '62' }))).toThrow(/entry 1 \("weekend"\): duration:/);
    expect(() => parse(entry({ schedule: '0 18 * *' }))).toThrow(/schedule: expected five fields/);
    expect(() => parse(entry({ resources: [] }))).toThrow(/resources:/);
    expect(() => parse({ schedule: '* * * * *' })).toThrow(/entry 1: name:/);
    expect(() => FreezeWindows.parse('{', 'w.json')).toThrow(/w.json: not JSON/);
  });

  it('is in force from its start in its own zone for its duration, on the resources it names', () => {
    const windows = parse(entry());
    // Friday 2026-12-04 16:59 UTC = 17:59 in Berlin (winter, UTC+1): not yet.
    expect(windows.activeFor(R, Date.UTC(2026, 11, 4, 16, 59))).toBeUndefined();
    const start = Date.UTC(2026, 11, 4, 17, 0);
    expect(windows.activeFor(R, start)).toEqual({
      reason: 'no deploys over the weekend (window weekend)',
      untilMs: start + 62 * 3_600_000,
      by: 'window:weekend',
      atMs: start,
    });
    expect(windows.activeFor(R, start + 61 * 3_600_000)?.atMs).toBe(start);
    expect(windows.activeFor(R, start + 62 * 3_600_000)).toBeUndefined();
    expect(windows.activeFor('lock:other', start + 60_000)).toBeUndefined();
    // In summer Berlin is UTC+2: the same schedule starts an hour earlier in UTC.
    expect(windows.activeFor(R, Date.UTC(2026, 6, 3, 16, 0))?.atMs).toBe(
      Date.UTC(2026, 6, 3, 16, 0),
    );
    expect(windows.describe(Date.UTC(2026, 11, 4, 12, 0))[0]).toMatchObject({
      activeFromMs: null,
      nextStartMs: start,
    });
  });

  it('refuses new holders while in force, like a freeze, and keeps the holder', () => {
    const windows = parse(entry({ schedule: '30 9 * * 1-5', duration: '30m', timeZone: 'UTC' }));
    const kernel = new LeaseKernel({ window: (r, now) => windows.activeFor(r, now) });
    const before = Date.UTC(2026, 11, 1, 9, 29, 50);
    expect(kernel.lease(R, A, before)).toMatchObject({ ok: true });
    const during = Date.UTC(2026, 11, 1, 9, 30, 10);
    expect(kernel.lease(R, A, during)).toMatchObject({ ok: true, renewed: true });
    expect(kernel.lease(R, 'did:web:acme.example:agent:b', during)).toMatchObject({
      ok: false,
      reason: 'frozen',
      until: Date.UTC(2026, 11, 1, 10, 0),
      message:
        'frozen until 2026-12-01T10:00:00Z by an operator: no deploys over the weekend (window weekend)',
    });
  });
});
