import { afterEach, describe, expect, it } from 'vitest';
import { runJob, runStep } from './support/runner.js';
import {
  granted,
  held,
  released,
  startScriptedPlane,
  type Reply,
  type ScriptedPlane,
  type Seen,
} from './support/scripted-plane.js';

/** The committed dist/ run as a runner runs it, against a scripted plane on loopback. */

const KEY = 'sekrit-KEY-8c1f';
const OTHER = 'did:web:github.com:acme:shop:actions:runs:777:attempts:1:jobs:deploy:beef';
const OTHER_RUN = 'https://github.com/acme/shop/actions/runs/777/attempts/1';
let plane: ScriptedPlane | undefined;

afterEach(async () => {
  await plane?.close();
  plane = undefined;
});

const isLease = (r: Seen) => r.path.endsWith('/coordination/lease');
const isRelease = (r: Seen) => r.path.endsWith('/coordination/release');

/** A plane that holds the resource for `heldAsks` asks, then grants it; releases answer `release`. */
async function startPlane(
  options: { heldAsks?: number; waitMs?: number; lease?: Reply; release?: Reply } = {},
) {
  let asks = 0;
  plane = await startScriptedPlane((req) => {
    const actor = (req.body as { actorDid: string }).actorDid;
    if (isRelease(req)) return options.release ?? { body: released('lease_e2e') };
    asks += 1;
    if (asks <= (options.heldAsks ?? 0))
      return { status: 423, body: held(OTHER, options.waitMs ?? 150) };
    return options.lease ?? { body: granted(actor, 'lease_e2e', { fence: 3 }) };
  });
  return plane;
}

const job = (inputs: Record<string, string> = {}, env: Record<string, string> = {}) =>
  runJob({
    inputs: { 'api-url': plane!.url, 'keep-alive': 'false', ...inputs },
    env: { INTRAMEDIAL_KEY: KEY, ...env },
  });

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

  it('waits on the named back-off, names the holder and its run, then takes over', async () => {
    await startPlane({ heldAsks: 2, waitMs: 150 });
    const { main } = await job();
    expect(main.code).toBe(0);
    expect(main.outputs.acquired).toBe('true');
    expect(Number(main.outputs['waited-ms'])).toBeGreaterThanOrEqual(300);
    const notices = main.stdout.split('\n').filter((l) => l.startsWith('::notice title=Waiting'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(OTHER);
    expect(notices[0]).toContain(OTHER_RUN);
    expect(main.stdout).toMatch(/Waiting for lock:deploy\/production: held by .*next ask in/);
    const asks = plane!.seen.filter(isLease);
    expect(asks).toHaveLength(3);
    expect(asks[1]!.atMs - asks[0]!.atMs).toBeGreaterThanOrEqual(140);
  });

  it('fails on timeout with an error naming the holder, and post releases nothing', async () => {
    await startPlane({ heldAsks: 1_000, waitMs: 200 });
    const { main, post } = await job({ 'wait-timeout': '700ms' });
    expect(main.code).toBe(1);
    expect(main.outputs).toMatchObject({ acquired: 'false', holder: OTHER });
    expect(main.stdout).toMatch(
      /::error::Timed out after \d+ms waiting for lock:deploy\/production: still held by .*actions\/runs\/777/,
    );
    expect(post.code).toBe(0);
    expect(post.stdout).toContain('nothing to release');
    expect(plane!.seen.filter(isRelease)).toEqual([]);
  });

  it('skips on timeout with acquired=false when asked to', async () => {
    await startPlane({ heldAsks: 1_000 });
    const { main } = await job({ 'wait-timeout': '0', 'on-timeout': 'skip' });
    expect(main.code).toBe(0);
    expect(main.outputs.acquired).toBe('false');
    expect(main.stdout).toMatch(/::warning::Timed out .* Continuing with acquired=false/);
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
        : { body: granted('did:web:x:y', 'lease_t') };
    });
    const { main, post } = await job();
    expect(main.code).toBe(0);
    expect(main.outputs['lease-id']).toBe('lease_t');
    expect(post.code).toBe(0);
  });

  it('fails at once on a refused key', async () => {
    plane = await startScriptedPlane(() => ({ status: 401, body: { error: 'unauthorized' } }));
    const { main, post } = await job();
    expect(main.code).toBe(1);
    expect(main.stdout).toMatch(/::error::.*401 Unauthorized\. The plane refused the key/);
    expect(main.stderr).not.toMatch(/\n\s+at /);
    expect(post.code).toBe(0);
    expect(plane.seen).toHaveLength(1);
  });

  it('fails on a body that breaks the contract, naming the field, without a stack trace', async () => {
    await startPlane({ lease: { body: { ok: true, lease: { id: 'x' } } } });
    const { main } = await job();
    expect(main.code).toBe(1);
    expect(main.stdout).toMatch(/::error::.*lease\.resource/);
    expect(main.stdout + main.stderr).not.toMatch(/\n\s+at /);
  });

  it('stops waiting within a second of SIGINT and holds nothing', async () => {
    await startPlane({ heldAsks: 1_000, waitMs: 10_000 });
    const main = await runStep('main', {
      inputs: { 'api-url': plane!.url },
      env: { INTRAMEDIAL_KEY: KEY },
      signal: { name: 'SIGINT', when: 'next ask in' },
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

  it('warns when the release fails and says when the lease lapses, never failing the job', async () => {
    const expiresAtMs = Date.now() + 1_500;
    await startPlane({
      lease: {
        body: {
          ok: true,
          lease: { id: 'lease_f', resource: 'r', holder: 'did:web:h', expiresAtMs },
        },
      },
      release: { status: 500 },
    });
    const { post } = await job();
    expect(post.code).toBe(0);
    expect(post.stdout).toMatch(
      new RegExp(
        `::warning::Could not release .*lease_f.*lapses on its own by ${new Date(expiresAtMs).toISOString()}`,
      ),
    );
    expect(plane!.seen.filter(isRelease).length).toBeGreaterThan(1);
  });

  it('warns when the release does not name our lease', async () => {
    await startPlane({ release: { body: released() } });
    const { post } = await job();
    expect(post.code).toBe(0);
    expect(post.stdout).toMatch(/::warning::.*does not name lease lease_e2e/);
  });

  it('validates every input before any request', async () => {
    await startPlane();
    const { main } = await job({ 'wait-timeout': 'forever' });
    expect(main.code).toBe(1);
    expect(main.stdout).toContain("::error::Invalid input 'wait-timeout': 'forever'. Expected");
    expect(plane!.seen).toEqual([]);
  });

  it('fails closed without a key, naming INTRAMEDIAL_KEY', async () => {
    await startPlane();
    const { main } = await job({}, { INTRAMEDIAL_KEY: '' });
    expect(main.code).toBe(1);
    expect(main.stdout).toMatch(/::error::No plane key.*INTRAMEDIAL_KEY/);
    expect(plane!.seen).toEqual([]);
  });

  it('refuses plain http to a host that is not loopback', async () => {
    await startPlane();
    const { main } = await job({ 'api-url': 'http://plane.example.com' });
    expect(main.code).toBe(1);
    expect(main.stdout).toContain("Invalid input 'api-url'");
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
