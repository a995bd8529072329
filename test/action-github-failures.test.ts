import { describe, expect, it } from 'vitest';
import { annotations, jobSteps } from './support/in-process.js';
import { granted, held, released, startScriptedPlane } from './support/scripted-plane.js';
import type { Reply, ScriptedPlane } from './support/scripted-plane.js';
import { closeAfterEach } from './support/cleanup.js';
import { freePort } from './support/ports.js';
import { OTHER } from './support/names.js';

/**
 * GitHub API failures say their cause (issue 21, item 4): a host that cannot be reached
 * is not a permission problem, 401 is the token, 403 the permission, 404 what was not
 * found, and none fails the gate. Main and post in-process against a scripted plane and
 * a fake GitHub API on loopback (or a port nothing listens on).
 */

const SHA = 'c'.repeat(40);
let plane: ScriptedPlane | undefined;
let github: ScriptedPlane | undefined;

closeAfterEach(() => [plane, github]);

async function startPlane() {
  let asks = 0;
  plane = await startScriptedPlane((req) => {
    const actor = (req.body as { actorDid: string }).actorDid;
    if (req.path.endsWith('/release')) return { body: released('lease_gh') };
    asks += 1;
    if (asks <= 1) return { status: 409, body: held(OTHER, 100) };
    return { body: granted(actor, 'lease_gh', { fence: 2 }) };
  });
}

/** A fake GitHub that answers every call with `reply`. */
async function startGitHub(reply: Reply) {
  github = await startScriptedPlane(() => reply);
  return github.url;
}

const closedPort = freePort;

async function job(githubApiUrl: string) {
  const { main, post } = await jobSteps({
    inputs: { 'api-url': plane!.url, 'keep-alive': 'false', 'github-token': 'ghs_test' },
    env: { INTRAMEDIAL_KEY: 'k', GITHUB_API_URL: githubApiUrl, GITHUB_SHA: SHA },
  });
  // None of these fails the gate: the lease is taken and given back.
  expect(main.failed).toBeUndefined();
  expect(main.outputs.acquired).toBe('true');
  expect(post.failed).toBeUndefined();
  const warnings = annotations(main, 'warning').map((w) => w.message);
  return {
    run: warnings.filter((m) => m.startsWith("Could not look up the holder's run")),
    status: warnings.filter((m) => m.startsWith('Could not set the commit status')),
  };
}

describe('GitHub API failures', () => {
  it('a host that cannot be reached is said as such, not as a missing permission', async () => {
    await startPlane();
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { run, status } = await job(url);
    expect(run).toHaveLength(1);
    expect(run[0]).toContain(`could not reach ${url} for the holder's run 777 in acme/shop`);
    expect(run[0]).toContain('ECONNREFUSED');
    expect(status).toHaveLength(1);
    expect(status[0]).toContain(`could not reach ${url} for the commit status of commit ccccccc`);
    for (const message of [...run, ...status]) expect(message).not.toMatch(/needs '|permission'/);
  });

  it('401 names the token', async () => {
    await startPlane();
    const { run, status } = await job(
      await startGitHub({ status: 401, body: { message: 'Bad credentials' } }),
    );
    expect(status[0]).toContain(
      "GitHub refused the token (401 Bad credentials): the 'github-token' input is not a valid token",
    );
    // The status warning came first and turned nothing else off: the run lookup says its own.
    expect(run[0]).toContain('GitHub refused the token (401 Bad credentials)');
  });

  it('403 names the permission each call needs', async () => {
    await startPlane();
    const { run, status } = await job(
      await startGitHub({
        status: 403,
        body: { message: 'Resource not accessible by integration' },
      }),
    );
    expect(run[0]).toContain(
      "GitHub refused the holder's run 777 in acme/shop (403 Resource not accessible by integration): the token needs 'actions: read' permission",
    );
    expect(status[0]).toContain("the token needs 'statuses: write' permission");
  });

  it('404 says what was not found', async () => {
    await startPlane();
    const { run, status } = await job(
      await startGitHub({ status: 404, body: { message: 'Not Found' } }),
    );
    expect(run[0]).toContain('GitHub found no run 777 in acme/shop (404 Not Found)');
    expect(status[0]).toContain('GitHub found no commit ccccccc in acme/shop (404 Not Found)');
  });
});
