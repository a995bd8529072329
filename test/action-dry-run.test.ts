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
    expect(post.summary).toMatch(/entries<\/td><td>2</);
    const verified = await runCli(['verify', bundle!, '--public-key', key!]);
    expect(verified).toMatchObject({ code: 0, stdout: expect.stringMatching(/^OK .*size 2/) });
    for (const pid of [main.state['kernel-pid'], main.state['keeper-pid']]) {
      expect(isAlive(Number(pid))).toBe(false);
    }
  });
});
