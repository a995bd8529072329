import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../src/gate/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['45', 45_000],
    ['0', 0],
    ['1.5s', 1_500],
    [' 2m ', 120_000],
    ['24h', 86_400_000],
  ])('reads %j as %i ms', (raw, ms) => {
    expect(parseDuration(raw)).toBe(ms);
  });

  it.each(['', 'abc', '-1', '5 m', '1d', '10min', 'ms', '1h30m', '25h', '1e3'])(
    'rejects %j',
    (raw) => {
      expect(parseDuration(raw)).toBeUndefined();
    },
  );
});

describe('formatDuration', () => {
  it.each([
    [250, '250ms'],
    [1_000, '1s'],
    [90_000, '1m 30s'],
    [3_600_000, '1h'],
    [3_661_000, '1h 1m 1s'],
  ])('formats %i ms as %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
