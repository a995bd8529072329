import { describe, expect, it } from 'vitest';
import { jobSteps, logText, mainStep, postStep } from './support/in-process.js';
import { startLoggedKernel } from './support/logged-kernel.js';
import { R } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/** main and post in-process (src/, the memory context) against the real kernel over HTTP, not a script. */

const OTHER = 'did:web:github.com:acme:shop:actions:runs:9:attempts:1:jobs:deploy:cafe';
let plane: Awaited<ReturnType<typeof startLoggedKernel>> | undefined;

closeAfterEach(() => [plane]);

const inputs = () => ({ 'api-url': plane!.url, 'keep-alive': 'false' });
const env = { INTRAMEDIAL_KEY: 'k' };

describe('the action against the kernel', () => {
  it('takes a free lease with a fence and gives it back', async () => {
    plane = await startLoggedKernel();
    const { main, post } = await jobSteps({ inputs: inputs(), env });
    expect(main.outputs).toMatchObject({ acquired: 'true', fence: '1' });
    expect(post.failed).toBeUndefined();
    expect(plane.events.map((e) => [e.kind, e.actorDid])).toEqual([
      ['grant', main.outputs['actor-did']],
      ['release', main.outputs['actor-did']],
    ]);
  });

  it('waits for another job, then takes over soon after it releases', async () => {
    plane = await startLoggedKernel();
    await plane.kernel.lease(R, OTHER);
    // Released 1.2 s after the job said it waits: measured from that event.
    let releasedAt = 0;
    const release = () =>
      setTimeout(() => {
        releasedAt = Date.now();
        void plane!.kernel.release(R, OTHER);
      }, 1_200);
    const { main } = await jobSteps({
      inputs: inputs(),
      env,
      onLog: { when: `is held by ${OTHER}`, run: release },
    });
    expect(main.failed).toBeUndefined();
    expect(logText(main)).toContain(`is held by ${OTHER}`);
    expect(releasedAt).toBeGreaterThan(0);
    expect(Number(main.outputs['waited-ms'])).toBeGreaterThanOrEqual(1_200);
    expect(main.outputs.fence).toBe('2');
  });

  it('times out against a held lease and holds nothing', async () => {
    plane = await startLoggedKernel();
    await plane.kernel.lease(R, OTHER);
    const { main, post } = await jobSteps({ inputs: { ...inputs(), 'wait-timeout': '1s' }, env });
    expect(main.failed).toMatch(/^Timed out after/);
    expect(main.outputs).toMatchObject({ acquired: 'false', holder: OTHER });
    expect(logText(post)).toContain('nothing to release');
    expect((await plane.kernel.status(R))?.holder).toBe(OTHER);
  });

  it('leaves the queue clean when a held ask is cancelled by SIGINT or SIGTERM', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const listeners = process.listenerCount(signal);
      plane = await startLoggedKernel();
      await plane.kernel.lease(R, OTHER);
      const asked = () => plane!.requests.some((r) => r.path.endsWith('/lease'));
      // The kernel holds the ask (Prefer: wait) while OTHER holds the lease; the signal comes
      // once it has the ask. Emitting it runs main's handler (a test worker has no other
      // one for these signals); a real signal to dist/ is action-e2e's test.
      let signalledAt = 0;
      const poll = setInterval(() => {
        if (!asked() || signalledAt) return;
        signalledAt = performance.now();
        process.emit(signal, signal);
      }, 20);
      const main = await mainStep({ inputs: inputs(), env }).finally(() => clearInterval(poll));
      expect(signalledAt).toBeGreaterThan(0);
      // From the signal to main's end, not from the start; generous, for two busy cores.
      expect(performance.now() - signalledAt).toBeLessThan(6_000);
      expect(main.failed).toBe(`Cancelled while waiting for ${R}; this job holds nothing.`);
      expect(logText(main)).toContain(`Received ${signal}: stopping the wait.`);
      expect(main.state['lease-id']).toBeUndefined();
      expect(process.listenerCount(signal)).toBe(listeners);
      const post = await postStep(main.state, { inputs: inputs(), env });
      expect(logText(post)).toContain('nothing to release');
      await plane.kernel.release(R, OTHER);
      // The cancelled job released its place: a newcomer is served at once.
      expect((await plane.kernel.lease(R, 'did:web:newcomer')).ok).toBe(true);
      await plane.close();
      plane = undefined;
    }
  });
});
