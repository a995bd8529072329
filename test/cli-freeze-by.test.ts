import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaneClient, type PlaneClient } from '../src/plane/client.js';
import {
  SOURCE_CLI,
  runCli,
  startKernelProcess,
  type KernelProcess,
} from './support/kernel-process.js';
import { A } from './support/names.js';

/**
 * `lease-gate freeze --by NAME` and `unfreeze --by NAME` (from source: newer than dist/):
 * the name an operator gives is what the kernel records and tells a waiter; a name not of
 * the form is refused before any request, naming the flag and its form, changing nothing.
 */

const ADMIN = 'admin-key-for-the-freeze-by-test';
const R = 'lock:deploy/by-test';

describe('lease-gate freeze and unfreeze --by', () => {
  let kernel: KernelProcess;
  let client: PlaneClient;
  const cli = (args: string[]) =>
    runCli(
      [args[0]!, '--api-url', kernel.url, '--resource', R, ...args.slice(1)],
      { LEASE_GATE_ADMIN_KEY: ADMIN },
      SOURCE_CLI,
    );

  beforeAll(async () => {
    kernel = await startKernelProcess(['--quiet'], { LEASE_GATE_ADMIN_KEY: ADMIN }, SOURCE_CLI);
    client = createPlaneClient({ apiUrl: kernel.url });
  }, 90_000);
  afterAll(async () => {
    await client?.close();
    await kernel?.stop();
  });

  it('names the operator to waiters, and refuses a name not of the form', async () => {
    const bad = await cli(['freeze', '--reason', 'incident 5', '--by', 'alice; rm -rf']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /Invalid --by 'alice; rm -rf'\. Expected a name of 1 to 64 letters, digits/,
    );
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const free = await client.lease({ resource: R, actorDid: A });
    expect(free).toMatchObject({ kind: 'granted' });
    await client.release({ resource: R, actorDid: A });

    const froze = await cli(['freeze', '--reason', 'incident 5', '--by', 'alice']);
    expect(froze.code, froze.stderr).toBe(0);
    const told = await client.lease({ resource: R, actorDid: A });
    expect(told.kind === 'frozen' && told.message).toBe(
      'frozen by operator alice until unfrozen: incident 5',
    );
    expect((await cli(['unfreeze', '--by', 'bob smith'])).code).toBe(2);
    const unfroze = await cli(['unfreeze', '--by', 'bob']);
    expect(unfroze.code, unfroze.stderr).toBe(0);
    expect(unfroze.stdout).toContain(`unfroze ${R}`);
  }, 120_000);
});
