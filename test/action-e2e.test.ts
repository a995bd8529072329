import { describe, expect, it } from 'vitest';
import { jobAgainst, runJob, runStep } from './support/runner.js';
import { holdThenGrant, isRelease, startScriptedPlane } from './support/scripted-plane.js';
import type { ScriptedPlane } from './support/scripted-plane.js';
import { closeAfterEach } from './support/cleanup.js';
import { OTHER } from './support/names.js';

/**
 * The black-box runs: the committed dist/ run as a runner runs it (INPUT_* with
 * action.yml's defaults, GITHUB_OUTPUT/STATE/STEP_SUMMARY files, STATE_* for
 * post), against a scripted plane on loopback. Only what a real process shows
 * is here: the round trip through the runner's files, a real signal during the
 * wait, and what reaches stdout/stderr. Everything else runs main and post
 * in-process (action-plane, action-kernel, action-github, action-inprocess).
 */

const KEY = 'sekrit-KEY-8c1f';
let plane: ScriptedPlane | undefined;

closeAfterEach(() => [plane]);

/** A plane that holds the resource for `heldAsks` asks, then grants it; releases answer `release`. */
const startPlane = async (options: Parameters<typeof holdThenGrant>[1] = {}) =>
  (plane = await startScriptedPlane(holdThenGrant(OTHER, options)));

const job = (inputs: Record<string, string> = {}, env: Record<string, string> = {}) =>
  runJob(jobAgainst(plane!.url, KEY, inputs, env));

describe('the action, end to end', () => {
  it('takes a free lease, hands it to post, and post gives it back', async () => {
    await startPlane();
    const { main, post } = await job();
    expect(main.code).toBe(0);
    expect(main.outputs).toMatchObject({
      acquired: 'true',
      'lease-id': 'lease_e2e',
      fence: '3',
      'waited-ms': expect.stringMatching(/^\d+$/),
      'expires-at-ms': expect.stringMatching(/^\d{13}$/),
    });
    const actor = main.outputs['actor-did']!;
    expect(actor).toMatch(
      /^did:web:github\.com:acme:shop:actions:runs:4242:attempts:1:jobs:deploy:[0-9a-f]{8}$/,
    );
    expect(main.outputs.holder).toBe(actor);
    expect(main.stdout).toMatch(/::notice title=Holding lock%3Adeploy\/production::Acquired/);
    expect(main.summary).toContain('lease_e2e');

    expect(post.code).toBe(0);
    expect(post.stdout).toContain('Released lock:deploy/production (lease lease_e2e)');
    expect(post.summary).toMatch(/released<\/td><td>released/);
    const releases = plane!.seen.filter(isRelease);
    expect(releases.map((r) => r.body)).toEqual([
      { resource: 'lock:deploy/production', actorDid: actor },
    ]);
  });

  it('stops waiting soon after a real SIGINT, leaves the queue by its own DID and holds nothing', async () => {
    await startPlane({ heldAsks: 1_000, waitMs: 10_000 });
    const main = await runStep('main', {
      inputs: { 'api-url': plane!.url },
      env: { INTRAMEDIAL_KEY: KEY },
      signal: { name: 'SIGINT', when: '::notice title=Waiting' },
    });
    // From the signal to the exit. The 1 s target is the bench's; this bound is the runner's
    // escalation (SIGTERM 7.5 s after SIGINT), with room for two busy cores (3.4 s seen).
    expect(main.exitAfterSignalMs).toBeLessThan(6_000);
    expect(main.code).toBe(1);
    expect(main.stdout).toContain('Cancelled while waiting for lock:deploy/production');
    expect(main.state['lease-id']).toBeUndefined();
    // Main leaves the plane's queue as it goes (by its own DID: it cannot release another's lease).
    const releases = plane!.seen.filter(isRelease);
    expect(releases.map((r) => r.body)).toEqual([
      { resource: 'lock:deploy/production', actorDid: main.outputs['actor-did'] },
    ]);
    const post = await runStep('post', { inputs: { 'api-url': plane!.url }, state: main.state });
    expect(post.code).toBe(0);
    expect(post.stdout).toContain('nothing to release');
    expect(plane!.seen.filter(isRelease)).toHaveLength(1);
  });

  it('masks the key first and never shows it in clear', async () => {
    await startPlane({ heldAsks: 1 });
    const { main, post } = await job({ key: KEY }, { INTRAMEDIAL_KEY: '' });
    expect(main.code).toBe(0);
    for (const step of [main, post]) {
      expect(step.stdout.split('\n')[0]).toBe(`::add-mask::${KEY}`);
      const rest = step.stdout.split('\n').slice(1).join('\n');
      for (const text of [
        rest,
        step.stderr,
        step.summary,
        JSON.stringify(step.state),
        JSON.stringify(step.outputs),
      ]) {
        expect(text).not.toContain(KEY);
      }
    }
    expect(plane!.seen.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });
});
