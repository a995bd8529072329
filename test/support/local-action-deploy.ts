import { setTimeout as sleep } from 'node:timers/promises';
import { run as main } from '../../src/action/main.js';

/**
 * The entry `@github/local-action` runs in test/action-local-action.test.ts:
 * the real main step (its @actions/core replaced by the emulator's), then a
 * "deploy" of LEASE_GATE_TEST_DEPLOY_MS, so that post (the emulator's --post)
 * runs several lease lifetimes later, as in a job.
 */
export async function run(): Promise<void> {
  await main();
  const deployMs = Number(process.env.LEASE_GATE_TEST_DEPLOY_MS ?? 0);
  console.log(`deploying for ${deployMs} ms`);
  await sleep(deployMs);
}
