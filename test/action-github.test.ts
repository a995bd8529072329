import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { annotations, jobSteps, logText } from './support/in-process.js';
import { granted, held, released, startScriptedPlane } from './support/scripted-plane.js';
import type { Reply, ScriptedPlane, Seen } from './support/scripted-plane.js';
import { closeAfterEach } from './support/cleanup.js';
import { OTHER } from './support/names.js';

/** main and post in-process (src/, the memory context) against a scripted plane and a fake GitHub API, both on loopback. */

const KEY = 'plane-KEY-never-shown';
const SHA = 'a'.repeat(40);
const HEAD_SHA = 'b'.repeat(40);
let plane: ScriptedPlane | undefined;
let github: ScriptedPlane | undefined;

closeAfterEach(() => [plane, github]);

const RUN_777 = {
  name: 'Deploy',
  run_number: 57,
  status: 'in_progress',
  conclusion: null,
  run_started_at: new Date(Date.now() - 125_000).toISOString(),
  html_url: 'https://github.com/acme/shop/actions/runs/777',
  triggering_actor: { login: 'alice' },
};

async function start(options: { heldAsks?: number; run?: Reply; statuses?: Reply } = {}) {
  let asks = 0;
  plane = await startScriptedPlane((req) => {
    const actor = (req.body as { actorDid: string }).actorDid;
    if (req.path.endsWith('/release')) return { body: released('lease_gh') };
    asks += 1;
    if (asks <= (options.heldAsks ?? 0)) return { status: 409, body: held(OTHER, 100) };
    return { body: granted(actor, 'lease_gh', { fence: 4 }) };
  });
  github = await startScriptedPlane((req) => {
    if (req.path.includes('/statuses/'))
      return options.statuses ?? { status: 201, body: { id: 1 } };
    if (req.path === '/repos/acme/shop/actions/runs/777') return options.run ?? { body: RUN_777 };
    return { status: 404, body: { message: 'Not Found' } };
  });
}

function job(inputs: Record<string, string> = {}, env: Record<string, string> = {}) {
  return jobSteps({
    inputs: { 'api-url': plane!.url, 'keep-alive': 'false', 'github-token': 'ghs_test', ...inputs },
    env: { INTRAMEDIAL_KEY: KEY, GITHUB_API_URL: github!.url, GITHUB_SHA: SHA, ...env },
  });
}

const statuses = () =>
  github!.seen
    .filter((r: Seen) => r.path.includes('/statuses/'))
    .map((r) => ({
      path: r.path,
      ...(r.body as Record<'state' | 'context' | 'target_url' | 'description', string>),
    }));

describe('commit statuses and the holder run', () => {
  it('goes pending → success → success (released), linking this run', async () => {
    await start({ heldAsks: 2 });
    const { main, post } = await job();
    expect(main.failed).toBeUndefined();
    expect(post.failed).toBeUndefined();
    const sent = statuses();
    expect(sent.map((s) => s.state)).toEqual(['pending', 'success', 'success']);
    for (const s of sent) {
      expect(s.path).toBe(`/repos/acme/shop/statuses/${SHA}`);
      expect(s.context).toBe('lease-gate/lock:deploy/production');
      expect(s.target_url).toBe('https://github.com/acme/shop/actions/runs/4242');
      expect(s.description.length).toBeLessThanOrEqual(140);
      expect(JSON.stringify(s)).not.toContain(KEY);
    }
    expect(sent[0]!.description).toMatch(/^Waiting: held by run 777 of acme\/shop/);
    expect(sent[1]!.description).toBe('Holding lease lease_gh, fence 4');
    expect(sent[2]!.description).toMatch(/^Released after holding .* \(lease lease_gh\)$/);
    expect(
      github!.seen.every((r) => /^(Bearer|token) ghs_test$/.test(String(r.headers.authorization))),
    ).toBe(true);
  });

  it('names the holder run in the notice: workflow, number, who, status, age, link', async () => {
    await start({ heldAsks: 1 });
    const { main } = await job();
    const notice = annotations(main, 'notice').find((n) => n.title?.startsWith('Waiting'));
    expect(notice?.message).toMatch(
      /That is run #57 of "Deploy" in acme\/shop, started by alice, in_progress, running for 2m \d+s — https:\/\/github\.com\/acme\/shop\/actions\/runs\/777/,
    );
    expect(github!.seen.filter((r) => r.path.endsWith('/runs/777'))).toHaveLength(1);
  });

  it('calls out a holder whose run already completed', async () => {
    await start({
      heldAsks: 1,
      run: { body: { ...RUN_777, status: 'completed', conclusion: 'cancelled' } },
    });
    const { main } = await job();
    expect(logText(main)).toMatch(/already completed \(cancelled\): its lease lapses on its own/);
  });

  it('warns once when the holder run cannot be read, and goes on', async () => {
    await start({ heldAsks: 2, run: { status: 404, body: { message: 'Not Found' } } });
    const { main } = await job();
    expect(main.failed).toBeUndefined();
    const warnings = annotations(main, 'warning')
      .map((w) => w.message)
      .filter((m) => m.startsWith('Could not look up'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('404 Not Found');
  });

  it('fails the status on timeout, naming the holder', async () => {
    await start({ heldAsks: 1_000 });
    const { main } = await job({ 'wait-timeout': '300ms' });
    expect(main.failed).toMatch(/^Timed out/);
    expect(statuses().map((s) => s.state)).toEqual(['pending', 'failure']);
    expect(statuses()[1]!.description).toMatch(
      /^Timed out after \d+ms: held by run 777 of acme\/shop$/,
    );
  });

  it('turns a 403 into one warning; the gate still acquires and releases', async () => {
    await start({
      heldAsks: 1,
      statuses: { status: 403, body: { message: 'Resource not accessible by integration' } },
    });
    const { main, post } = await job();
    expect(main.failed).toBeUndefined();
    expect(main.outputs.acquired).toBe('true');
    const warnings = annotations(main, 'warning')
      .map((w) => w.message)
      .filter((m) => m.startsWith('Could not set the commit status'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('403 Resource not accessible by integration');
    expect(logText(post)).toContain('Released lock:deploy/production');
    expect(statuses()).toHaveLength(2); // one failed try in main, one in post
  });

  it('makes no GitHub call without a token; an empty context is the default one', async () => {
    await start({ heldAsks: 1 });
    await job({ 'github-token': '' });
    expect(github!.seen).toEqual([]);
    await job({ 'status-context': '' });
    expect(statuses()[0]!.context).toBe('lease-gate/lock:deploy/production');
  });

  it("'off' turns the statuses off, and only them: the holder's run is still named", async () => {
    await start({ heldAsks: 1 });
    const { main, post } = await job({ 'status-context': 'off' });
    expect(main.failed).toBeUndefined();
    expect(post.failed).toBeUndefined();
    expect(statuses()).toEqual([]);
    expect(github!.seen.map((r) => r.path)).toContain('/repos/acme/shop/actions/runs/777');
    const notice = annotations(main, 'notice').find((n) => n.title?.startsWith('Waiting'));
    expect(notice?.message).toContain('That is run #57 of "Deploy"');
  });

  it('sets the status on the head commit of a pull request', async () => {
    await start();
    const event = join(mkdtempSync(join(tmpdir(), 'lease-gate-event-')), 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { head: { sha: HEAD_SHA } } }));
    await job({}, { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event });
    expect(statuses()[0]!.path).toBe(`/repos/acme/shop/statuses/${HEAD_SHA}`);
  });
});
