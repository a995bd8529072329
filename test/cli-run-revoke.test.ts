import { afterEach, describe, expect, it } from 'vitest';
import { RACE_RESOURCE, queued, startRace, until, type Race } from '../bench/revoke-race.js';

/**
 * A revoke between two real `lease-gate run`s (from source) on a real kernel
 * process: A's command tree stops at once, and B's starts only after it.
 */

let race: Race | undefined;

afterEach(async () => {
  await race?.close();
  race = undefined;
});

describe('lease-gate run revoked', () => {
  it('stops its command tree within 1 s, and the next holder starts only after it', async () => {
    race = await startRace();
    const a = race.run('a');
    // Both of A's processes write before anything else happens.
    await until(() => race!.lines().has('a-child'), 60_000, "A's command tree");
    const b = race.run('b');
    await until(() => queued(race!.url, 'b'), 60_000, 'B waiting');
    const revokedAt = Date.now();
    await race.revoke('incident 42\n<b>stop</b>');
    const code = await a.exited;
    await until(() => race!.lines().has('b-child'), 60_000, "B's command tree");
    b.child.kill('SIGTERM');
    await b.exited;

    const lines = race.lines();
    const lastA = Math.max(...lines.get('a')!, ...lines.get('a-child')!);
    const firstB = Math.min(...lines.get('b')!, ...lines.get('b-child')!);
    // Nothing of A wrote after B's first line: one holder at a time, at the edges too.
    expect(lastA).toBeLessThan(firstB);
    // A's whole tree stopped within 1 s of the revoke (it renews only every 10 s).
    expect(lastA - revokedAt).toBeLessThan(1_000);
    expect(code).toBe(143);
    const stderr = a.stderr();
    // The plane's time of the end, the reason and the operator's message, escaped to one line.
    expect(stderr).toMatch(
      new RegExp(
        `Lost ${RACE_RESOURCE} at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(plane's clock\\): an operator revoked the lease: incident 42%0A<b>stop</b>\\. Stopping the command\\.`,
      ),
    );
    const at = Date.parse(/Lost \S+ at (\S+)/.exec(stderr)![1]!);
    expect(Math.abs(at - revokedAt)).toBeLessThan(2_000);
  });
});
