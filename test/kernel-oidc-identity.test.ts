import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployFromEnv } from '../src/action/deploy-settings.js';
import { createHttpClient } from '../src/http/client.js';
import { createAuthorizer } from '../src/kernel/auth/authorize.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { deriveActorDid, runContextFromEnv } from '../src/lease/did.js';
import { createPlaneClient } from '../src/plane/client.js';
import type { Deploy } from '../src/plane/deploy.js';
import { startFakeIssuer, type FakeIssuer, acmeOidc } from './support/fake-oidc.js';
import { LEASE, RELEASE } from './support/names.js';

/**
 * On an OIDC kernel a run is who its token says, in everything it sends: its
 * deploy fields come from the token's claims (a field that disagrees is refused
 * `403 not_your_deploy` and changes nothing), and a revoke refuses the whole run
 * attempt, whatever nonce its DIDs carry. Over HTTP, against a fake issuer.
 */

const ADMIN_KEY = 'admin-key-5c1e';
const WORKFLOW_REF = 'acme/shop/.github/workflows/deploy.yml@refs/heads/main';

let issuer: FakeIssuer;
let kernel: RunningKernel;
const http = createHttpClient();
const dir = mkdtempSync(join(tmpdir(), 'lease-gate-oidc-identity-'));

beforeAll(async () => {
  issuer = await startFakeIssuer();
  kernel = await startKernelServer({
    auth: createAuthorizer({ oidc: acmeOidc(issuer.url, http) }),
    adminKey: ADMIN_KEY,
    table: new ResourceTable({ nextInLineWaitMs: 50 }),
    log: () => {},
  });
});

afterAll(async () => {
  await kernel?.close();
  await http.close();
  await issuer?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The runner's environment for run `n` of acme/shop's deploy workflow (run id 5000 + n). */
function runnerEnv(n: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_WORKFLOW: 'Deploy',
    GITHUB_WORKFLOW_REF: WORKFLOW_REF,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_SHA: sha(n),
    GITHUB_EVENT_NAME: 'push',
    GITHUB_RUN_ID: String(5000 + n),
    GITHUB_RUN_NUMBER: String(n),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: 'deploy',
    ...extra,
  };
}
const sha = (n: number) => n.toString(16).padStart(40, 'a');

/** The claims GitHub puts in that run's token: the same run, from the same source. */
function claimsOf(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const repository = env.GITHUB_REPOSITORY!;
  return {
    sub: `repo:${repository}:ref:${env.GITHUB_REF}`,
    repository,
    repository_owner: repository.split('/')[0],
    ref: env.GITHUB_REF,
    sha: env.GITHUB_SHA,
    workflow: env.GITHUB_WORKFLOW,
    workflow_ref: env.GITHUB_WORKFLOW_REF,
    job_workflow_ref: env.GITHUB_WORKFLOW_REF,
    event_name: env.GITHUB_EVENT_NAME,
    run_id: env.GITHUB_RUN_ID,
    run_number: env.GITHUB_RUN_NUMBER,
    run_attempt: env.GITHUB_RUN_ATTEMPT,
  };
}

/** What the action asks with for that run: its DID and its deploy, by the action's own code. */
async function actionRun(env: NodeJS.ProcessEnv, nonce = 'n0nce001') {
  const token = await issuer.sign({ claims: claimsOf(env) });
  return {
    token,
    actorDid: deriveActorDid(runContextFromEnv(env)!, nonce),
    deploy: deployFromEnv(env)!,
  };
}

async function post(path: string, token: string, body: unknown) {
  const response = await fetch(kernel.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function holding(resource: string, token: string) {
  const response = await fetch(`${kernel.url}${LEASE}?resource=${resource}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await response.json()) as { lease: { holder: string; deploy?: Deploy } | null }).lease;
}

describe("an OIDC run's deploy fields", () => {
  it("are the token's: the real action's request is granted with them as sent", async () => {
    const run = await actionRun(runnerEnv(7));
    expect(run.deploy).toMatchObject({ workflow: '.github/workflows/deploy.yml', runNumber: 7 });
    const client = createPlaneClient({ apiUrl: kernel.url, key: run.token, http });
    const granted = await client.lease({
      resource: 'lock:real',
      actorDid: run.actorDid,
      deploy: run.deploy,
      queue: 'newest',
    });
    expect(granted).toMatchObject({ kind: 'granted' });
    expect((await holding('lock:real', run.token))?.deploy).toEqual({
      repository: 'acme/shop',
      workflow: '.github/workflows/deploy.yml',
      ref: 'refs/heads/main',
      commit: sha(7),
      runNumber: 7,
      runAttempt: 1,
      runUrl: 'https://github.com/acme/shop/actions/runs/5007/attempts/1',
    });
    await client.release({ resource: 'lock:real', actorDid: run.actorDid });
  });

  it('are completed from the claims when the request leaves some out', async () => {
    const run = await actionRun(runnerEnv(8));
    const asked = await post(LEASE, run.token, {
      resource: 'lock:partial',
      actorDid: run.actorDid,
      deploy: { commit: sha(8) },
    });
    expect(asked.status).toBe(200);
    expect((await holding('lock:partial', run.token))?.deploy).toEqual(run.deploy);
    // No deploy at all: no deploy order for this lease.
    await post(RELEASE, run.token, { resource: 'lock:partial', actorDid: run.actorDid });
    expect(
      (await post(LEASE, run.token, { resource: 'lock:none', actorDid: run.actorDid })).status,
    ).toBe(200);
    expect(await holding('lock:none', run.token)).not.toHaveProperty('deploy');
  });

  it('name their workflow by its file only, not by a name another workflow may take', async () => {
    // other.yml calls itself by deploy.yml's path: its `workflow` claim is that name.
    const env = runnerEnv(9, {
      GITHUB_WORKFLOW: '.github/workflows/deploy.yml',
      GITHUB_WORKFLOW_REF: 'acme/shop/.github/workflows/other.yml@refs/heads/main',
    });
    const run = await actionRun(env);
    const asked = await post(LEASE, run.token, {
      resource: 'lock:named-like',
      actorDid: run.actorDid,
      deploy: { ...run.deploy, workflow: '.github/workflows/deploy.yml' },
    });
    expect(asked).toMatchObject({ status: 403, body: { reason: 'not_your_deploy' } });
    expect(await holding('lock:named-like', run.token)).toBeNull();
    // What the action sends for it (the file) is granted.
    expect(run.deploy.workflow).toBe('.github/workflows/other.yml');
    const own = { resource: 'lock:named-like', actorDid: run.actorDid, deploy: run.deploy };
    expect((await post(LEASE, run.token, own)).status).toBe(200);
  });

  it('of another repository cannot supersede a waiting run or become the live commit', async () => {
    const R = 'lock:deploy/shop';
    const holder = await actionRun(runnerEnv(20));
    const waiter = await actionRun(runnerEnv(21));
    expect(
      (
        await post(LEASE, holder.token, {
          resource: R,
          actorDid: holder.actorDid,
          deploy: holder.deploy,
        })
      ).status,
    ).toBe(200);
    const waiting = await post(LEASE, waiter.token, {
      resource: R,
      actorDid: waiter.actorDid,
      deploy: waiter.deploy,
      queue: 'newest',
    });
    expect(waiting.body).toMatchObject({ reason: 'lease_held', position: 0 });

    // acme/other's token, as its own run's DID, naming acme/shop's lane with a newer run and another commit.
    const otherEnv = runnerEnv(1, {
      GITHUB_REPOSITORY: 'acme/other',
      GITHUB_WORKFLOW_REF: 'acme/other/.github/workflows/deploy.yml@refs/heads/main',
      GITHUB_RUN_ID: '9001',
    });
    const other = await actionRun(otherEnv);
    const forged = {
      ...waiter.deploy,
      runNumber: 99,
      commit: sha(99),
      runUrl: 'https://github.com/acme/shop/actions/runs/5099/attempts/1',
    };
    const refused = await post(LEASE, other.token, {
      resource: R,
      actorDid: other.actorDid,
      deploy: forged,
      queue: 'newest',
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ ok: false, reason: 'not_your_deploy' });
    expect(String(refused.body.message)).toMatch(
      /deploy\.repository is "acme\/other", not "acme\/shop"/,
    );
    // The same repository's token naming another run's number or commit is refused alike.
    const liar = await actionRun(runnerEnv(22));
    for (const lie of [
      { runNumber: 99 },
      { commit: sha(99) },
      { ref: 'refs/heads/release' },
      { workflow: '.github/workflows/other.yml' },
      { runUrl: 'https://github.com/acme/shop/actions/runs/1/attempts/1' },
    ]) {
      const answer = await post(LEASE, liar.token, {
        resource: R,
        actorDid: liar.actorDid,
        deploy: { ...liar.deploy, ...lie },
        queue: 'newest',
      });
      expect({ lie, status: answer.status, reason: answer.body.reason }).toEqual({
        lie,
        status: 403,
        reason: 'not_your_deploy',
      });
    }

    // Nothing changed: the waiter still waits first in line, and is granted next with the holder's deploy as previous.
    expect(
      (
        await post(LEASE, waiter.token, {
          resource: R,
          actorDid: waiter.actorDid,
          deploy: waiter.deploy,
          queue: 'newest',
        })
      ).body,
    ).toMatchObject({ reason: 'lease_held', position: 0 });
    await post(RELEASE, holder.token, { resource: R, actorDid: holder.actorDid });
    const granted = await post(LEASE, waiter.token, {
      resource: R,
      actorDid: waiter.actorDid,
      deploy: waiter.deploy,
      queue: 'newest',
    });
    expect(granted.body).toMatchObject({ ok: true, previous: { commit: sha(20), runNumber: 20 } });
    await post(RELEASE, waiter.token, { resource: R, actorDid: waiter.actorDid });
  });

  it("name a pull request's head commit, which no claim carries", async () => {
    const event = join(dir, 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { head: { sha: sha(0xbeef) } } }));
    const env = runnerEnv(30, {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: event,
      GITHUB_REF: 'refs/pull/5/merge',
      GITHUB_SHA: sha(0xfeed),
    });
    const run = await actionRun(env);
    expect(run.deploy.commit).toBe(sha(0xbeef));
    const client = createPlaneClient({ apiUrl: kernel.url, key: run.token, http });
    expect(
      await client.lease({ resource: 'lock:preview', actorDid: run.actorDid, deploy: run.deploy }),
    ).toMatchObject({ kind: 'granted' });
    expect((await holding('lock:preview', run.token))?.deploy).toMatchObject({
      commit: sha(0xbeef),
      ref: 'refs/pull/5/merge',
    });
    await client.release({ resource: 'lock:preview', actorDid: run.actorDid });
  });
});

describe('a revoke on an OIDC kernel', () => {
  it('refuses the whole run attempt, under any nonce or job; a rerun may ask', async () => {
    const R = 'lock:revoked';
    const env = runnerEnv(40);
    const run = await actionRun(env);
    expect((await post(LEASE, run.token, { resource: R, actorDid: run.actorDid })).status).toBe(
      200,
    );
    const revoke = await fetch(`${kernel.url}/api/v1/acp/coordination/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ resource: R, reason: 'bad deploy' }),
    });
    expect(revoke.status).toBe(200);

    const again = deriveActorDid(runContextFromEnv(env)!, 'fresh999');
    const otherJob = deriveActorDid(runContextFromEnv({ ...env, GITHUB_JOB: 'deploy-eu' })!, 'n2');
    for (const actorDid of [run.actorDid, again, otherJob]) {
      const answer = await post(LEASE, run.token, { resource: R, actorDid });
      expect({ actorDid, status: answer.status, body: answer.body }).toMatchObject({
        actorDid,
        status: 409,
        body: { ok: false, reason: 'revoked', message: 'bad deploy' },
      });
    }
    // A rerun is another attempt: it waits for the lock-delay like anyone else, it is not revoked.
    const rerun = await actionRun({ ...env, GITHUB_RUN_ATTEMPT: '2' });
    const asked = await post(LEASE, rerun.token, { resource: R, actorDid: rerun.actorDid });
    expect(asked.body.reason).not.toBe('revoked');
    // The revoked holder may still give back.
    expect((await post(RELEASE, run.token, { resource: R, actorDid: run.actorDid })).status).toBe(
      200,
    );
  });
  it('refuses any DID its token may act as after the give-back, whatever its shape', async () => {
    const prefix = (env: NodeJS.ProcessEnv) =>
      `did:web:github.com:acme:shop:actions:runs:${env.GITHUB_RUN_ID}:attempts:1:`;
    const revokeAndGiveBack = async (resource: string, token: string, actorDid: string) => {
      expect((await post(LEASE, token, { resource, actorDid })).status).toBe(200);
      const revoke = await fetch(`${kernel.url}/api/v1/acp/coordination/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ resource, reason: 'bad deploy' }),
      });
      expect(revoke.status).toBe(200);
      expect((await post(RELEASE, token, { resource, actorDid })).status).toBe(200);
    };
    const refusedAs = async (resource: string, token: string, actorDid: string) => {
      const answer = await post(LEASE, token, { resource, actorDid });
      return { actorDid, status: answer.status, reason: answer.body.reason };
    };

    // The action's own DID revoked: odd tails under the same run attempt are the same run.
    const env = runnerEnv(41);
    const run = await actionRun(env);
    await revokeAndGiveBack('lock:revoked-tails', run.token, run.actorDid);
    for (const actorDid of [`${prefix(env)}jobs:deploy:n0nce003:x`, `${prefix(env)}zz`]) {
      expect(await refusedAs('lock:revoked-tails', run.token, actorDid)).toEqual({
        actorDid,
        status: 409,
        reason: 'revoked',
      });
    }

    // And the reverse: a holder that asked under an odd DID keeps its whole attempt out.
    const oddEnv = runnerEnv(42);
    const odd = await actionRun(oddEnv);
    await revokeAndGiveBack('lock:revoked-odd', odd.token, `${prefix(oddEnv)}zz`);
    expect(await refusedAs('lock:revoked-odd', odd.token, odd.actorDid)).toEqual({
      actorDid: odd.actorDid,
      status: 409,
      reason: 'revoked',
    });
  });
});
