import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../src/fs/processes.js';
import { readStatusFile } from '../src/lease/keeper-status.js';
import { startHostedPlane } from './support/hosted-plane.js';
import { runStep } from './support/runner.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * The built action against a plane with the hosted plane's contract: no ttlMs, only
 * `expiresAtMs` and the Date header, here 1.5 s leases on a clock 10 minutes off the
 * runner's. The keeper must read the lease time on the plane's clock (keep.test.ts has the
 * pace to the millisecond); here, that the lease never lapses over several lifetimes and
 * that a lease taken away is noticed before post.
 */

const THEM = 'did:web:acme.example:agent:them';
let plane: Awaited<ReturnType<typeof startHostedPlane>> | undefined;

closeAfterEach(() => [plane]);

async function startJob(skewMs: number) {
  plane = await startHostedPlane({ leaseMs: 1_500, skewMs });
  const tempDir = mkdtempSync(join(tmpdir(), 'lease-gate-hosted-'));
  const inputs = { 'api-url': plane.url };
  const env = { INTRAMEDIAL_KEY: 'k' };
  const main = await runStep('main', { inputs, env, tempDir });
  expect(main.stdout).not.toMatch(/::error/);
  expect(main.code).toBe(0);
  const post = () => runStep('post', { inputs, env, tempDir, state: main.state });
  return { main, post, plane, keeperPid: Number(main.state['keeper-pid']) };
}

describe('the keeper on a plane that tells no ttlMs', () => {
  it('holds 1.5 s leases from a plane 10 min behind through 7.5 s of deploy: never a lapse', async () => {
    const { main, post, plane, keeperPid } = await startJob(-600_000);
    await sleep(7_500);
    const done = await post();
    const gaps = plane.asks.slice(1).map((t, i) => t - plane.asks[i]!);
    expect(plane.lapses, `asks ${gaps.join(' ')} ms apart`).toEqual([]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`Released lock:deploy/production (lease lease_1)`);
    expect(done.stdout).not.toMatch(/::(warning|error)/);
    expect(plane.lapses).toEqual([]);
    expect(plane.grants.map((g) => g.holder)).toEqual([main.outputs['actor-did']]);
    // About a renewal every half second or less; at least one per lifetime held.
    const renewals = Number(/renewals<\/td><td>(\d+)/.exec(done.summary)?.[1]);
    expect(renewals).toBeGreaterThanOrEqual(5);
    expect(isAlive(keeperPid)).toBe(false);
  });

  it('notices a lease taken away on a plane 10 min ahead before post, and post reports it', async () => {
    const { post, plane, main } = await startJob(600_000);
    const statusFile = main.state['keeper-status']!;
    await sleep(3_000);
    expect(plane.lapses).toEqual([]);
    const takenAt = Date.now();
    plane.takeAway(THEM);
    // Renewals every half second or less: the loss is in the keeper's record within a
    // lease time; waited for here up to 5 s (two busy cores), which a 30 s pace never meets.
    let lostAt: number | undefined;
    while (lostAt === undefined && Date.now() - takenAt < 5_000) {
      lostAt = readStatusFile(statusFile)?.lost?.atMs;
      if (lostAt === undefined) await sleep(50);
    }
    expect(lostAt).toBeDefined();
    expect(readStatusFile(statusFile)?.lost).toMatchObject({ reason: 'lease_held', holder: THEM });
    const done = await post();
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/::error.*This job was not exclusive after that moment/);
    expect(plane.lapses).toEqual([]);
    console.log(`loss noticed ${lostAt! - takenAt} ms after the take-away`);
  });
});
