import { describe, expect, it } from 'vitest';
import { annotations, jobSteps, logText, summaryRow } from './support/in-process.js';
import { jobAgainst } from './support/runner.js';
import {
  granted,
  released,
  holdThenGrant,
  isRelease,
  isLease,
  startScriptedPlane,
} from './support/scripted-plane.js';
import type { ScriptedPlane } from './support/scripted-plane.js';
import { closeAfterEach } from './support/cleanup.js';
import { OTHER } from './support/names.js';

/**
 * main and post in-process (src/, the memory context) against a scripted plane
 * on loopback: waiting, timeouts, faults, refusals, validation and the post
 * step's warnings. The runner-shaped runs of dist/ are in action-e2e.test.ts.
 */

const KEY = 'sekrit-KEY-8c1f';
const OTHER_RUN = 'https://github.com/acme/shop/actions/runs/777/attempts/1';
const STACK = /\n\s+at /;
let plane: ScriptedPlane | undefined;

closeAfterEach(() => [plane]);

/** A plane that holds the resource for `heldAsks` asks, then grants it; releases answer `release`. */
async function startPlane(options: Parameters<typeof holdThenGrant>[1] = {}) {
  plane = await startScriptedPlane(holdThenGrant(OTHER, options));
  return plane;
}

const job = (inputs: Record<string, string> = {}, env: Record<string, string> = {}) =>
  jobSteps(jobAgainst(plane!.url, KEY, inputs, env));

describe('the action in-process against a scripted plane', () => {
  it('waits on the named back-off, names the holder and its run, then takes over', async () => {
    await startPlane({ heldAsks: 2, waitMs: 150 });
    const { main } = await job();
    expect(main.failed).toBeUndefined();
    expect(main.outputs.acquired).toBe('true');
    // The first ask is answered at once; a held ask follows it, then the plane's back-off.
    expect(Number(main.outputs['waited-ms'])).toBeGreaterThanOrEqual(150);
    const notices = annotations(main, 'notice').filter((n) => n.title?.startsWith('Waiting'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.message).toContain(OTHER);
    expect(notices[0]!.message).toContain(OTHER_RUN);
    expect(logText(main)).not.toMatch(/next ask in/);
    const asks = plane!.seen.filter(isLease);
    expect(asks).toHaveLength(3);
    expect(asks[2]!.atMs - asks[1]!.atMs).toBeGreaterThanOrEqual(140);
  });

  it('fails on timeout naming the holder; main leaves the queue, post releases nothing', async () => {
    await startPlane({ heldAsks: 1_000, waitMs: 200 });
    const { main, post } = await job({ 'wait-timeout': '700ms' });
    expect(main.failed).toMatch(
      /^Timed out after \d+ms waiting for lock:deploy\/production: still held by .*actions\/runs\/777/,
    );
    expect(main.outputs).toMatchObject({ acquired: 'false', holder: OTHER });
    expect(post.failed).toBeUndefined();
    expect(logText(post)).toContain('nothing to release');
    // One release, main's, by its own DID: it leaves the queue so nothing stays reserved for it.
    expect(plane!.seen.filter(isRelease).map((r) => r.body)).toEqual([
      { resource: 'lock:deploy/production', actorDid: main.outputs['actor-did'] },
    ]);
  });

  it('skips on timeout with acquired=false when asked to', async () => {
    await startPlane({ heldAsks: 1_000 });
    const { main } = await job({ 'wait-timeout': '0', 'on-timeout': 'skip' });
    expect(main.failed).toBeUndefined();
    expect(main.outputs.acquired).toBe('false');
    expect(annotations(main, 'warning').map((w) => w.message)).toEqual([
      // wait-timeout 0 asks once, as told: said so, not as a timeout (issue #55 item 9).
      expect.stringMatching(
        /^lock:deploy\/production is held by .*; asked once \(wait-timeout: 0\)\. Continuing with acquired=false/,
      ),
    ]);
    expect(plane!.seen.filter(isLease)).toHaveLength(1);
  });

  it('rides out transient plane faults', async () => {
    let n = 0;
    plane = await startScriptedPlane((req) => {
      n += 1;
      if (n === 1) return { status: 503 };
      if (n === 2) return { destroy: true };
      return isRelease(req)
        ? { body: released('lease_t') }
        : { body: granted((req.body as { actorDid: string }).actorDid, 'lease_t') };
    });
    const { main, post } = await job();
    expect(main.failed).toBeUndefined();
    expect(main.outputs['lease-id']).toBe('lease_t');
    expect(post.failed).toBeUndefined();
  });

  it('fails at once on a refused key, without a stack trace', async () => {
    plane = await startScriptedPlane(() => ({ status: 401, body: { error: 'unauthorized' } }));
    const { main, post } = await job();
    expect(main.failed).toMatch(/401 Unauthorized.*The plane refused the key/);
    expect(logText(main)).not.toMatch(STACK);
    expect(post.failed).toBeUndefined();
    expect(plane.seen).toHaveLength(1);
  });

  it('fails on a body that breaks the contract, naming the field, without a stack trace', async () => {
    await startPlane({ lease: { body: { ok: true, lease: { id: 'x' } } } });
    const { main } = await job();
    expect(main.failed).toMatch(/lease\.resource/);
    expect(logText(main)).not.toMatch(STACK);
  });

  it('warns when the release fails and says when the lease lapses, never failing the job', async () => {
    const expiresAtMs = Date.now() + 1_500;
    plane = await startScriptedPlane((req) =>
      isRelease(req)
        ? { status: 500 }
        : {
            body: granted((req.body as { actorDid: string }).actorDid, 'lease_f', { expiresAtMs }),
          },
    );
    const { post } = await job();
    expect(post.failed).toBeUndefined();
    expect(annotations(post, 'warning').map((w) => w.message)).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^Could not release .*lease_f.*lapses on its own by ${new Date(expiresAtMs).toISOString()}`,
        ),
      ),
    );
    expect(plane.seen.filter(isRelease).length).toBeGreaterThan(1);
  });

  it('warns when the release does not name our lease', async () => {
    for (const [answer, named] of [
      [released(), 'none'],
      [released('lease_other'), 'lease_other'],
    ] as const) {
      await startPlane({ release: { body: answer } });
      const { post } = await job();
      expect(post.failed).toBeUndefined();
      expect(annotations(post, 'warning').map((w) => w.message)).toContainEqual(
        expect.stringMatching(new RegExp(`does not name lease lease_e2e \\(it named ${named}\\)`)),
      );
      expect(summaryRow(post, 'released')).toBe(`not confirmed: the plane released ${named}`);
      await plane!.close();
      plane = undefined;
    }
  });

  it('validates every input before any request', async () => {
    await startPlane();
    const { main } = await job({ 'wait-timeout': 'forever' });
    expect(main.failed).toMatch(/^Invalid input 'wait-timeout': 'forever'\. Expected/);
    expect(plane!.seen).toEqual([]);
  });

  it('refuses a proxy variable that is not a URL before any request, without its value', async () => {
    await startPlane();
    const { main } = await job({}, { HTTPS_PROXY: 'user:s3cret@proxy.example:3128' });
    expect(main.failed).toBe(
      'Invalid HTTPS_PROXY (value not shown). Expected an http:// or https:// URL, such as http://proxy.example:3128.',
    );
    expect(plane!.seen).toEqual([]);
  });

  it('fails closed without a key, naming INTRAMEDIAL_KEY', async () => {
    await startPlane();
    const { main } = await job({}, { INTRAMEDIAL_KEY: '' });
    expect(main.failed).toMatch(/^No plane key.*INTRAMEDIAL_KEY/);
    expect(plane!.seen).toEqual([]);
  });

  it('refuses plain http to a host that is not loopback', async () => {
    await startPlane();
    const { main } = await job({ 'api-url': 'http://plane.example.com' });
    expect(main.failed).toContain("Invalid input 'api-url'");
  });
});
