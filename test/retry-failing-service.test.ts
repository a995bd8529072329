import { describe, expect, it } from 'vitest';
import { createPlaneClient } from '../src/plane/client.js';
import { PlaneUnavailableError } from '../src/plane/errors.js';
import type { Sleep } from '../src/plane/time.js';

/**
 * When the job's OIDC token cannot be had, the call is retried like the plane's own failures,
 * and its last word names the token service, not the plane: the plane was never asked.
 */
describe('a token service that keeps failing', () => {
  it('is named as what looks unavailable, after the retries', async () => {
    let now = 0;
    const sleep: Sleep = (ms) => {
      now += ms;
      return Promise.resolve();
    };
    let asked = 0;
    const plane = createPlaneClient({
      // Nothing listens here, and nothing is sent: the token comes first.
      apiUrl: 'http://127.0.0.1:9',
      bearer: () => {
        asked += 1;
        return Promise.reject(new Error('the runner answered 500'));
      },
      clock: { now: () => now },
      sleep,
      random: () => 0.5,
    });
    try {
      const failure = await plane
        .lease({ resource: 'lock:deploy/production', actorDid: 'did:web:ci:one' })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      if (!(failure instanceof PlaneUnavailableError))
        throw new Error('not a PlaneUnavailableError');
      const message = failure.message;
      expect(message).toMatch(/could not get an OIDC token \(the runner answered 500\)/);
      expect(message).toMatch(/; the OIDC token service looks unavailable$/);
      expect(message).not.toContain('the plane looks unavailable');
      expect(asked).toBeGreaterThan(1);
    } finally {
      await plane.close();
    }
  });
});
