import { describe, expect, it } from 'vitest';
import { isAlive } from '../src/fs/processes.js';
import { runCli } from './support/kernel-process.js';
import { runJob } from './support/runner.js';

describe('dry run, end to end', () => {
  it('takes and gives back a lease on the job own kernel, with no key and nothing left running', async () => {
    const { main, post } = await runJob({
      inputs: { 'dry-run': 'true' },
      env: { INTRAMEDIAL_KEY: '' },
    });
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(
      /Dry run: using this job's own local kernel at http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(main.outputs).toMatchObject({ acquired: 'true', fence: '1' });
    expect(main.state['api-url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(main.summary).toContain('dry run on a local kernel');

    expect(post.code).toBe(0);
    expect(post.stdout).toContain(
      `Released lock:deploy/production (lease ${main.outputs['lease-id']})`,
    );
    expect(post.stdout).toContain("Stopped the dry run's local kernel.");
    expect(post.summary).toContain('dry run on a local kernel');
    const bundle = /bundle<\/td><td>([^<]+)</.exec(post.summary)?.[1];
    const key = /public key<\/td><td>([^<]+)</.exec(post.summary)?.[1];
    // The grant, each renewal (the keeper renews a handed-over lease at once: it cannot know
    // when main sent the ask), and the release.
    const renewals = Number(/renewals<\/td><td>(\d+)/.exec(post.summary)?.[1] ?? 'NaN');
    expect(renewals).toBeGreaterThanOrEqual(0);
    const entries = 2 + renewals;
    expect(post.summary).toContain(`entries</td><td>${entries}<`);
    const verified = await runCli(['verify', bundle!, '--public-key', key!]);
    expect(verified).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^OK .*size ${entries}\\b`)),
    });
    for (const pid of [main.state['kernel-pid'], main.state['keeper-pid']]) {
      expect(isAlive(Number(pid))).toBe(false);
    }
  });
});
