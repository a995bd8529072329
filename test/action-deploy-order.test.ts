import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { Ledger } from '../src/ledger/ledger.js';
import { annotations, jobSteps, logText, summaryRow } from './support/in-process.js';
import { startScriptedPlane, type Reply, type ScriptedPlane } from './support/scripted-plane.js';
import { RESOURCE } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * Deploy order end to end: main and post in-process against the real kernel
 * over HTTP and a fake GitHub compare route, both on loopback.
 */

const LIVE = 'a'.repeat(40);
const OURS = 'b'.repeat(40);
let kernel: RunningKernel | undefined;
let github: ScriptedPlane | undefined;

closeAfterEach(() => [kernel, github]);

async function start(compare: Reply | undefined) {
  kernel = await startKernelServer({
    table: new ResourceTable({ nextInLineWaitMs: 50 }),
    ledger: new Ledger(),
    log: () => undefined,
  });
  github = await startScriptedPlane((req) => {
    if (compare && req.path.startsWith('/repos/acme/shop/compare/')) return compare;
    return { status: 404, body: { message: 'Not Found' } };
  });
}

const runEnv = (sha: string, runNumber: number, extra: Record<string, string> = {}) => ({
  GITHUB_API_URL: github!.url,
  GITHUB_SHA: sha,
  GITHUB_REF: 'refs/heads/main',
  GITHUB_WORKFLOW: 'Deploy',
  GITHUB_WORKFLOW_REF: 'acme/shop/.github/workflows/deploy.yml@refs/heads/main',
  GITHUB_RUN_NUMBER: String(runNumber),
  GITHUB_RUN_ID: String(5000 + runNumber),
  ...extra,
});

function job(sha: string, runNumber: number, inputs: Record<string, string> = {}, env = {}) {
  return jobSteps({
    inputs: {
      'api-url': kernel!.url,
      'keep-alive': 'false',
      'github-token': 'ghs_test',
      'status-context': 'off',
      ...inputs,
    },
    env: { INTRAMEDIAL_KEY: 'k', ...runEnv(sha, runNumber, env) },
  });
}

/** The first deploy of LIVE, then this run of OURS. */
async function afterLive(compare: Reply | undefined, inputs: Record<string, string> = {}) {
  await start(compare);
  const first = await job(LIVE, 10);
  expect(first.main.outputs).toMatchObject({ acquired: 'true', outdated: 'false' });
  expect(first.main.outputs).not.toHaveProperty('live-commit');
  return job(OURS, 11, inputs);
}

const compares = () => github!.seen.filter((r) => r.path.includes('/compare/'));

async function holder() {
  const res = await request(`${kernel!.url}/api/v1/acp/coordination/lease?resource=${RESOURCE}`);
  return ((await res.body.json()) as { lease: { holder: string } | null }).lease;
}

describe('never an older commit', () => {
  it('deploys a newer commit (ahead), after asking GitHub to compare live...ours', async () => {
    const { main, post } = await afterLive({ body: { status: 'ahead' } });
    expect(main.failed).toBeUndefined();
    expect(main.outputs).toMatchObject({
      acquired: 'true',
      outdated: 'false',
      'live-commit': LIVE,
    });
    expect(compares().map((r) => r.path)).toEqual([
      `/repos/acme/shop/compare/${LIVE}...${OURS}?per_page=1`,
    ]);
    expect(compares()[0]!.headers.authorization).toMatch(/ghs_test$/);
    expect(logText(main)).toContain('newer than the last one granted here');
    expect(summaryRow(main, 'commit')).toBe(`https://github.com/acme/shop/commit/${OURS}`);
    expect(summaryRow(post, 'commit')).toBe(`https://github.com/acme/shop/commit/${OURS}`);
    expect(logText(post)).toContain(`Released ${RESOURCE}`);
  });

  it('skips an older commit (behind): gives the lease back at once and succeeds', async () => {
    const { main, post } = await afterLive({ body: { status: 'behind' } });
    expect(main.failed).toBeUndefined();
    expect(main.outputs).toMatchObject({
      acquired: 'false',
      outdated: 'true',
      'live-commit': LIVE,
    });
    expect(main.outputs).not.toHaveProperty('lease-id');
    expect(await holder()).toBeNull();
    expect(annotations(main, 'notice').map((n) => n.title)).toContain('Outdated: skipped');
    expect(summaryRow(main, 'live commit')).toBe(`https://github.com/acme/shop/commit/${LIVE}`);
    expect(summaryRow(main, 'outcome')).toBe('outdated (skipped, lease given back)');
    expect(logText(post)).toContain('granted no lease');
    // The skipped run did not become the live one: the next run is compared with LIVE again.
    const next = await job('c'.repeat(40), 12);
    expect(next.main.outputs['live-commit']).toBe(LIVE);
  });

  it('fails the step on an older commit with on-outdated: fail, naming the live commit', async () => {
    const { main } = await afterLive({ body: { status: 'behind' } }, { 'on-outdated': 'fail' });
    expect(main.failed).toContain(LIVE);
    expect(main.failed).toMatch(/on-outdated: fail/);
    expect(main.outputs).toMatchObject({ acquired: 'false', outdated: 'true' });
    expect(await holder()).toBeNull();
    expect(summaryRow(main, 'outcome')).toBe('outdated (step failed)');
  });

  it('deploys an older commit with on-outdated: deploy (a rollback), and says so', async () => {
    const { main } = await afterLive({ body: { status: 'behind' } }, { 'on-outdated': 'deploy' });
    expect(main.failed).toBeUndefined();
    expect(main.outputs).toMatchObject({ acquired: 'true', outdated: 'true', 'live-commit': LIVE });
    expect(annotations(main, 'warning').map((w) => w.title)).toContain('Deploying an older commit');
    expect(summaryRow(main, 'commit')).toBe(`https://github.com/acme/shop/commit/${OURS}`);
  });

  it('deploys when GitHub says identical', async () => {
    const { main } = await afterLive({ body: { status: 'identical' } });
    expect(main.outputs).toMatchObject({ acquired: 'true', outdated: 'false' });
    expect(logText(main)).toContain('the same as the last one granted here');
    expect(summaryRow(main, 'commit')).toBe(`https://github.com/acme/shop/commit/${OURS}`);
  });

  it('deploys the same commit again (a rerun) without asking GitHub', async () => {
    await start({ body: { status: 'behind' } });
    await job(LIVE, 10);
    const { main } = await job(LIVE, 10, {}, { GITHUB_RUN_ATTEMPT: '2' });
    expect(main.outputs).toMatchObject({ acquired: 'true', outdated: 'false' });
    expect(compares()).toEqual([]);
  });

  it('deploys a diverged commit (a force-push) with a note', async () => {
    const { main } = await afterLive({ body: { status: 'diverged' } });
    expect(main.outputs).toMatchObject({ acquired: 'true', outdated: 'false' });
    expect(annotations(main, 'notice').map((n) => n.title)).toContain('Deploy order: diverged');
    expect(summaryRow(main, 'commit')).toBe(`https://github.com/acme/shop/commit/${OURS}`);
  });

  it.each([
    ['a 404', { status: 404, body: { message: 'Not Found' } }, /compare API failed: 404/],
    ['a 5xx', { status: 502, body: { message: 'Bad Gateway' } }, /compare API failed: 502/],
    ['an unknown status', { body: { status: 'sideways' } }, /unknown status \(sideways\)/],
  ])('says so and deploys when GitHub answers %s', async (_, reply, why) => {
    const { main } = await afterLive(reply);
    expect(main.failed).toBeUndefined();
    expect(main.outputs).toMatchObject({
      acquired: 'true',
      outdated: 'false',
      'live-commit': LIVE,
    });
    const warning = annotations(main, 'warning').find((w) =>
      w.message.startsWith('Could not tell'),
    );
    expect(warning?.message).toMatch(why);
    expect(warning?.message).not.toContain('ghs_test');
    expect(summaryRow(main, 'commit')).toBe(`https://github.com/acme/shop/commit/${OURS}`);
  });

  it('says so and deploys without a token, asking GitHub nothing', async () => {
    const { main } = await afterLive({ body: { status: 'behind' } }, { 'github-token': '' });
    expect(main.outputs).toMatchObject({ acquired: 'true', outdated: 'false' });
    expect(logText(main)).toMatch(/no 'github-token' to ask GitHub's compare API with/);
    expect(summaryRow(main, 'commit')).toBe(`https://github.com/acme/shop/commit/${OURS}`);
    expect(compares()).toEqual([]);
  });
});

describe('superseded runs step aside', () => {
  it('leaves the queue with acquired=false and superseded-by when a newer run of its lane waits', async () => {
    await start(undefined);
    const lease = (body: unknown) =>
      request(`${kernel!.url}/api/v1/acp/coordination/lease`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      }).then((r) => r.body.json());
    await lease({ resource: RESOURCE, actorDid: 'did:web:acme.example:other' });
    const newer = {
      repository: 'acme/shop',
      workflow: '.github/workflows/deploy.yml',
      ref: 'refs/heads/main',
      runNumber: 21,
      runUrl: 'https://github.com/acme/shop/actions/runs/5021/attempts/1',
    };
    let joined: Promise<unknown> | undefined;
    const { main, post } = await jobSteps({
      inputs: {
        'api-url': kernel!.url,
        'keep-alive': 'false',
        'status-context': 'off',
        queue: 'newest',
        'wait-timeout': '60s',
      },
      env: { INTRAMEDIAL_KEY: 'k', ...runEnv(OURS, 20) },
      onLog: {
        when: 'Waiting up to',
        run: () => {
          joined = lease({
            resource: RESOURCE,
            actorDid: 'did:web:acme.example:run21',
            deploy: newer,
          });
        },
      },
    });
    await joined;
    expect(main.failed).toBeUndefined();
    expect(main.outputs).toMatchObject({ acquired: 'false', 'superseded-by': newer.runUrl });
    expect(annotations(main, 'notice').map((n) => n.title)).toContain(`Superseded on ${RESOURCE}`);
    expect(summaryRow(main, 'outcome')).toBe('superseded (step succeeded, nothing deployed)');
    expect(summaryRow(main, 'superseded by')).toBe(newer.runUrl);
    expect(logText(post)).toContain('granted no lease');
  });
});
