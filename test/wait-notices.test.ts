import { describe, expect, it } from 'vitest';
import type { HeldEvent } from '../src/gate/wait.js';
import { describePlace, waitNotices } from '../src/lease/texts.js';

const A = 'did:web:ci:job-a';
const B = 'did:web:ci:job-b';

function event(elapsedMs: number, over: Partial<HeldEvent> = {}): HeldEvent {
  return {
    holder: A,
    reserved: false,
    holderChanged: false,
    positionChanged: false,
    first: false,
    elapsedMs,
    nextAskInMs: 31,
    ...over,
  };
}

describe('the wait notices', () => {
  it('speak at once on the first answer, with the holder, the place and the estimate', () => {
    const say = waitNotices('lock:deploy/production');
    const line = say(
      event(0, {
        first: true,
        holderChanged: true,
        positionChanged: true,
        position: 2,
        etaMs: 360_000,
      }),
    );
    expect(line).toBe(
      'lock:deploy/production is held by did:web:ci:job-a; 3rd in line; about 6m at recent hold times',
    );
    expect(line).not.toMatch(/next ask/);
  });

  it('say nothing while nothing changes, then at most one line a minute with the time waited', () => {
    const say = waitNotices('r');
    const lines = [0, 8_000, 16_000, 59_000, 61_000, 69_000, 119_000, 122_000].map((ms, i) =>
      say(
        event(ms, {
          first: i === 0,
          holderChanged: i === 0,
          positionChanged: i === 0,
          position: 0,
        }),
      ),
    );
    expect(lines).toEqual([
      'r is held by did:web:ci:job-a; next in line',
      undefined,
      undefined,
      undefined,
      'r is still held by did:web:ci:job-a; next in line; waited 1m 1s',
      undefined,
      undefined,
      'r is still held by did:web:ci:job-a; next in line; waited 2m 2s',
    ]);
  });

  it('speak at once when the holder or the place changes', () => {
    const say = waitNotices('r');
    say(event(0, { first: true, holderChanged: true, positionChanged: true, position: 1 }));
    expect(say(event(5_000, { positionChanged: true, position: 0 }))).toBe(
      'r is held by did:web:ci:job-a; next in line; waited 5s',
    );
    expect(say(event(9_000, { holder: B, holderChanged: true, reserved: true }))).toBe(
      'r is reserved for did:web:ci:job-b (next in line); waited 9s',
    );
  });

  it('tolerate a plane that gives no place and no estimate', () => {
    expect(describePlace(undefined, undefined)).toBe('');
    expect(describePlace(10, undefined)).toBe('11th in line');
    expect(describePlace(undefined, 90_000)).toBe('about 1m 30s at recent hold times');
  });
});
