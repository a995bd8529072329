import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../src/fs/processes.js';
import { startLoggedKernel } from './support/logged-kernel.js';
import { runStep } from './support/runner.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Main, several 3 s lease lifetimes of "deploy", then post: the committed dist/ on loopback.
 * (1.5 s leases lapsed with both cores busy: a starved keeper renewed too late.)
 */

let plane: Awaited<ReturnType<typeof startLoggedKernel>> | undefined;

afterEach(async () => {
  await plane?.close();
  plane = undefined;
});

async function holdThenPost(deploy: () => Promise<void>) {
  plane = await startLoggedKernel({ ttlMs: 3_000 });
  const tempDir = mkdtempSync(join(tmpdir(), 'lease-gate-keep-'));
  const inputs = { 'api-url': plane.url };
  const env = { INTRAMEDIAL_KEY: 'k' };
  const main = await runStep('main', { inputs, env, tempDir });
  expect(main.code).toBe(0);
  const keeperPid = Number(main.state['keeper-pid']);
  expect(isAlive(keeperPid)).toBe(true);
  await deploy();
  const post = await runStep('post', { inputs, env, tempDir, state: main.state });
  return { main, post, keeperPid, plane };
}

describe('keep-alive, end to end', () => {
  it('holds a 3 s lease through 9 s of deploy, then releases and leaves nothing running', async () => {
    const { main, post, keeperPid, plane } = await holdThenPost(() => sleep(9_000));
    const actor = main.outputs['actor-did']!;
    expect(post.code).toBe(0);
    expect(post.stdout).toContain(
      `Released lock:deploy/production (lease ${main.outputs['lease-id']})`,
    );
    expect(post.stdout).not.toMatch(/::(warning|error)/);
    const renewals = Number(/renewals<\/td><td>(\d+)/.exec(post.summary)?.[1]);
    expect(renewals).toBeGreaterThanOrEqual(6);
    const events = plane.events;
    expect(events.map((e) => [e.kind, e.actorDid])).toEqual([
      ['grant', actor],
      ['release', actor],
    ]);
    expect(isAlive(keeperPid)).toBe(false);
    const served = plane.requests.length;
    await sleep(1_000);
    expect(plane.requests.length).toBe(served);
  });

  it('reports a lease revoked mid-job, with the operator reason, and releases nothing', async () => {
    const THIEF = 'did:web:acme.example:agent:hotfix';
    const { post } = await holdThenPost(async () => {
      await sleep(1_000);
      // Revoke and re-grant in one tick, so the keeper's next renewal cannot slip between.
      plane!.kernel.revoke('lock:deploy/production', 'hotfix', Date.now());
      expect(plane!.kernel.lease('lock:deploy/production', THIEF, Date.now()).ok).toBe(true);
      await sleep(3_000);
    });
    expect(post.code).toBe(0);
    expect(post.stdout).toMatch(
      new RegExp(
        // A revoked holder is refused as final (reason "revoked"), with the operator's reason.
        `::error title=Lost lock%3Adeploy/production::Lost lock:deploy/production at .*an operator revoked the lease: hotfix`,
      ),
    );
    expect(plane!.requests.filter((r) => r.path.endsWith('/release'))).toEqual([]);
    // The thief's own lease may lapse meanwhile; we neither renewed nor released it.
    expect(plane!.events.slice(0, 3).map((e) => e.kind)).toEqual(['grant', 'revoke', 'grant']);
    expect(plane!.events.filter((e) => e.kind === 'release')).toEqual([]);
  });
});
