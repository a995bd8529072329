import { describe, expect, it } from 'vitest';
import { retryLines, retryWindowMs } from '../src/cli/session.js';
import { openSession } from '../src/lease/session.js';
import { createPlaneClient, type RetryEvent } from '../src/plane/client.js';
import { PlaneUnavailableError } from '../src/plane/errors.js';
import { fakeTime } from './support/fake-time.js';
import { freePort } from './support/ports.js';
import { causeText } from '../src/errors.js';

/**
 * A dead plane (a loopback port nobody listens on: every attempt is refused at once) on the
 * test's clock: transient failures are retried to the caller's deadline, each back-off
 * bounded, and every "retrying for N more" is kept.
 */

const ME = 'did:web:acme.example:agent:me';
const REQ = { resource: 'lock:deploy/production', actorDid: ME };
const THIRTY_MIN = 30 * 60_000;

async function deadPlane(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

describe('retrying a dead plane within the caller’s deadline', () => {
  it('retries to the deadline with back-offs of at most 8 s, each event saying the time truly left', async () => {
    const time = fakeTime(5_000);
    const events: Array<RetryEvent & { at: number }> = [];
    const client = createPlaneClient({
      apiUrl: await deadPlane(),
      clock: time.clock,
      sleep: time.sleep,
      random: () => 0.5,
      onRetry: (event) => events.push({ ...event, at: time.clock.now() }),
    });
    const until = time.clock.now() + THIRTY_MIN;
    const error = await client.lease(REQ, { retryUntilMs: until }).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(PlaneUnavailableError);
    // It gave up at the deadline, not before: the last attempt was made at it.
    expect(time.clock.now()).toBe(until);
    expect(Math.max(...time.sleeps)).toBeLessThanOrEqual(8_000);
    expect(events.length).toBe(time.sleeps.length);
    expect(events.length).toBeGreaterThan(200);
    for (const event of events) expect(event.retryForMs).toBe(until - event.at);
    expect(causeText(error)).toMatch(
      new RegExp(`after ${events.length + 1} attempt\\(s\\) over 1800 s`),
    );
  });

  it('run --wait-timeout 30m: every "retrying for N more" line is kept before it gives up', async () => {
    const time = fakeTime(5_000);
    const apiUrl = await deadPlane();
    const lines: Array<{ text: string; at: number }> = [];
    const say = (text: string) => lines.push({ text, at: time.clock.now() });
    const session = openSession({
      apiUrl,
      key: '',
      resource: REQ.resource,
      actorDid: ME,
      clock: time.clock,
      sleep: time.sleep,
      random: () => 0.5,
      wallNow: time.clock.now,
      onRetry: retryLines(apiUrl, undefined, say, time.clock.now),
    });
    const started = time.clock.now();
    const error = await session
      .acquire({ timeoutMs: THIRTY_MIN, retryWindowMs: retryWindowMs(THIRTY_MIN) })
      .catch((e: unknown) => e);
    await session.close();
    expect(error).toBeInstanceOf(PlaneUnavailableError);
    const gaveUpAt = time.clock.now();
    expect(gaveUpAt - started).toBe(THIRTY_MIN);
    // The first line says "for up to 30m", then a line a minute, each one true.
    expect(lines[0]?.text).toMatch(/Retrying quietly for up to 30m\.$/);
    expect(lines.length).toBeGreaterThanOrEqual(28);
    for (const { text, at } of lines) {
      const said = /for (?:up to )?((?:\d+[hms] ?)+?)(?: more)?\.$/.exec(text)?.[1];
      expect(said, text).toBeDefined();
      // formatDuration rounds to the second.
      expect(Math.abs(at + durationOf(said!) - gaveUpAt), text).toBeLessThanOrEqual(500);
    }
  });
});

/** `25m 50s` as milliseconds. */
function durationOf(text: string): number {
  const unit = { h: 3_600_000, m: 60_000, s: 1_000 } as const;
  let ms = 0;
  for (const [, n, u] of text.matchAll(/(\d+)([hms])/g))
    ms += Number(n) * unit[u as keyof typeof unit];
  return ms;
}
