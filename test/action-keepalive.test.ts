import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../src/fs/processes.js';
import { startLoggedKernel } from './support/logged-kernel.js';
import { runStep } from './support/runner.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { KEEPER_NODE_FLAGS } from '../src/lease/background.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeAfterEach } from './support/cleanup.js';

/**
 * Main, several 3 s lease lifetimes of "deploy", then post: the committed dist/ on loopback,
 * a black-box run because the keeper must outlive main's process and be stopped by post's.
 * (1.5 s leases lapsed with both cores busy: a starved keeper renewed too late.) A lease
 * revoked mid-job is action-inprocess.test.ts's, main and post in-process.
 */

let plane: Awaited<ReturnType<typeof startLoggedKernel>> | undefined;

closeAfterEach(() => [plane]);

async function holdThenPost(deploy: () => Promise<void>) {
  plane = await startLoggedKernel({ ttlMs: 3_000 });
  const tempDir = mkdtempSync(join(tmpdir(), 'lease-gate-keep-'));
  const inputs = { 'api-url': plane.url };
  const env = { INTRAMEDIAL_KEY: 'k' };
  const main = await runStep('main', { inputs, env, tempDir });
  expect(main.code).toBe(0);
  const keeperPid = Number(main.state['keeper-pid']);
  expect(isAlive(keeperPid)).toBe(true);
  // The keeper runs on the Node flags that keep its memory down (background.ts), ahead of the CLI.
  const argv = readFileSync(`/proc/${keeperPid}/cmdline`, 'utf8').split('\0');
  expect(argv.slice(1, 1 + KEEPER_NODE_FLAGS.length)).toEqual(KEEPER_NODE_FLAGS);
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
    // At least one renewal per lifetime held (about 9 are due); the exact pace is keep.test.ts's,
    // and a lapse would show below as a second grant.
    const renewals = Number(/renewals<\/td><td>(\d+)/.exec(post.summary)?.[1]);
    expect(renewals).toBeGreaterThanOrEqual(3);
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
});
