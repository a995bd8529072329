import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { memoryContext } from '../src/action/context.js';
import { run as main } from '../src/action/main.js';
import { run as post } from '../src/action/post.js';
import { startLoggedKernel } from './support/logged-kernel.js';
import { readStatusFile } from '../src/lease/keeper-status.js';
import { isAlive } from '../src/fs/processes.js';
import {
  actionInputs,
  distHelper,
  logText as lines,
  mainStep,
  postStep,
} from './support/in-process.js';
import { RUN_ENV } from './support/runner.js';
import { granted, held, released, startScriptedPlane } from './support/scripted-plane.js';
import type { ScriptedPlane } from './support/scripted-plane.js';
import { closeAfterEach } from './support/cleanup.js';

/** main and post in-process through the memory context: src/, not dist/. */

const ME = 'did:web:acme.example:agent:me';
let plane: ScriptedPlane | undefined;
let kernel: Awaited<ReturnType<typeof startLoggedKernel>> | undefined;
closeAfterEach(() => [plane, kernel]);

const inputs = (extra: Record<string, string>) =>
  actionInputs({ 'actor-did': ME, 'keep-alive': 'false', ...extra });

/** Polls (the keeper is another process) until `done`; the deadline only ends a failing test. */
async function until(done: () => boolean, deadlineMs = 30_000) {
  for (const end = Date.now() + deadlineMs; !done() && Date.now() < end;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the action in-process', () => {
  it('escapes plane text: a holder or message cannot write workflow commands', async () => {
    plane = await startScriptedPlane(() => ({
      status: 409,
      body: {
        ok: false,
        reason: 'revoked',
        holder: ME,
        message: 'x\n::add-mask::leak\n::stop-commands::t',
      },
    }));
    const ctx = memoryContext({
      inputs: inputs({ 'api-url': plane.url }),
      env: { ...RUN_ENV, INTRAMEDIAL_KEY: 'k' },
    });
    await main(ctx);
    expect(ctx.failed).toContain('revoked');
    for (const entry of ctx.log) expect(entry.message).not.toMatch(/[\r\n]/);
    expect(ctx.state.outcome).toBe('none');
  });

  it('post releases by (resource, own DID) when main died between the grant and saving it', async () => {
    kernel = await startLoggedKernel();
    expect((await kernel.kernel.lease('lock:deploy/production', ME)).ok).toBe(true);
    const ctx = memoryContext({
      inputs: inputs({}),
      state: { resource: 'lock:deploy/production', 'actor-did': ME, 'api-url': kernel.url },
      env: { INTRAMEDIAL_KEY: 'k' },
    });
    await post(ctx);
    expect(lines(ctx)).toMatch(/Main recorded no lease.*released/);
    expect(await kernel.kernel.status('lock:deploy/production')).toBeNull();
  });

  it('a grant with an expiry outside the Date range fails main; post still gives the lease back', async () => {
    plane = await startScriptedPlane((req) =>
      req.path.endsWith('/release')
        ? { body: released('lease_bad') }
        : { body: granted(ME, 'lease_bad', { expiresAtMs: 1e300 }) },
    );
    const env = { ...RUN_ENV, INTRAMEDIAL_KEY: 'k' };
    const mainCtx = memoryContext({ inputs: inputs({ 'api-url': plane.url }), env });
    await main(mainCtx);
    expect(mainCtx.failed).toContain('expiresAtMs');
    expect(mainCtx.outputs.acquired).toBeUndefined();
    const postCtx = memoryContext({
      inputs: inputs({ 'api-url': plane.url }),
      state: mainCtx.state,
      env,
    });
    await post(postCtx);
    expect(postCtx.failed).toBeUndefined();
    // Given back at once by the client that refused to believe it, and again by post.
    expect(plane.seen.filter((r) => r.path.endsWith('/release'))).toHaveLength(2);
  });

  it('a summary that cannot be written is a warning after a grant, never a failure', async () => {
    kernel = await startLoggedKernel();
    const ctx = memoryContext({
      inputs: inputs({ 'api-url': kernel.url }),
      env: { ...RUN_ENV, INTRAMEDIAL_KEY: 'k' },
      summaryFails: true,
    });
    await main(ctx);
    expect(ctx.failed).toBeUndefined();
    expect(ctx.outputs.acquired).toBe('true');
    expect(ctx.log.some((l) => l.kind === 'warning' && /job summary/.test(l.message))).toBe(true);
    await post(
      memoryContext({
        inputs: inputs({ 'api-url': kernel.url }),
        state: ctx.state,
        env: { INTRAMEDIAL_KEY: 'k' },
      }),
    );
    expect(await kernel.kernel.status('lock:deploy/production')).toBeNull();
  });

  it('words a reservation as reserved for the next in line, never held by', async () => {
    plane = await startScriptedPlane((_, i) =>
      i === 0
        ? { status: 409, body: { ...held('did:web:acme.example:agent:next', 100), reserved: true } }
        : { body: granted(ME) },
    );
    const ctx = memoryContext({
      inputs: inputs({ 'api-url': plane.url }),
      env: { ...RUN_ENV, INTRAMEDIAL_KEY: 'k' },
    });
    await main(ctx);
    expect(lines(ctx)).toContain('reserved for did:web:acme.example:agent:next (next in line)');
    expect(lines(ctx)).not.toContain('held by did:web:acme.example:agent:next');
  });

  it('keeps the lease with a keeper found from its own module (tsx from source), and post stops it', async () => {
    kernel = await startLoggedKernel({ ttlMs: 10_000 });
    const env = { ...RUN_ENV, INTRAMEDIAL_KEY: 'k', PATH: process.env.PATH ?? '' };
    const ctx = memoryContext({
      inputs: inputs({ 'api-url': kernel.url, 'keep-alive': 'true' }),
      env,
    });
    await main(ctx);
    expect(ctx.failed).toBeUndefined();
    expect(Number(ctx.state['keeper-pid'])).toBeGreaterThan(0);
    await until(() => (readStatusFile(ctx.state['keeper-status']!)?.renewals ?? 0) > 0);
    expect(readStatusFile(ctx.state['keeper-status']!)?.renewals).toBeGreaterThanOrEqual(1);
    expect((await kernel.kernel.status('lock:deploy/production'))?.holder).toBe(ME);
    const postCtx = memoryContext({
      inputs: inputs({ 'api-url': kernel.url }),
      state: ctx.state,
      env,
    });
    await post(postCtx);
    expect(lines(postCtx)).toContain('Released lock:deploy/production');
    // Gone, or a zombie this test process has not reaped yet (it spawned the keeper): post's own test.
    expect(isAlive(Number(ctx.state['keeper-pid']))).toBe(false);
    expect(kernel.events.map((e) => e.kind)).toEqual(['grant', 'release']);
  });

  it('reports a lease revoked mid-job, with the operator reason, and gives back only after the job', async () => {
    kernel = await startLoggedKernel({ ttlMs: 3_000, adminKey: 'adm' });
    const THIEF = 'did:web:acme.example:agent:hotfix';
    const step = {
      inputs: inputs({ 'api-url': kernel.url, 'keep-alive': 'true' }),
      env: { INTRAMEDIAL_KEY: 'k' },
    };
    const main = await mainStep({ ...step, main: { helper: distHelper } });
    expect(main.failed).toBeUndefined();
    // Through the kernel's route, as the console does: the keeper's watch hears it.
    const revoked = await request(`${kernel.url}/api/v1/acp/coordination/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer adm' },
      body: JSON.stringify({ resource: 'lock:deploy/production', reason: 'hotfix' }),
    });
    expect(revoked.statusCode).toBe(200);
    await revoked.body.dump();
    // Until the job gives back (its post step) or the lock-delay passes, the next agent waits.
    expect((await kernel.kernel.lease('lock:deploy/production', THIEF)).ok).toBe(false);
    // Post runs once the keeper has seen the loss (the event), not after a guessed sleep.
    await until(() => readStatusFile(main.state['keeper-status']!)?.lost !== undefined);
    const post = await postStep(main.state, step);
    expect(post.failed).toBeUndefined();
    // A revoked holder is refused as final (reason "revoked"), with the operator's reason.
    expect(post.log).toContainEqual({
      kind: 'error',
      title: 'Lost lock:deploy/production',
      message: expect.stringMatching(
        /^Lost lock:deploy\/production at .*an operator revoked the lease: hotfix/,
      ),
    });
    // Post gave back (one release by our DID, which held nothing): now the next agent may have it.
    expect(kernel.requests.filter((r) => r.path.endsWith('/release'))).toHaveLength(1);
    expect((await kernel.kernel.lease('lock:deploy/production', THIEF)).ok).toBe(true);
    expect(kernel.events.slice(0, 3).map((e) => e.kind)).toEqual(['grant', 'revoke', 'grant']);
    expect(kernel.events.filter((e) => e.kind === 'release')).toEqual([]);
  });
});
