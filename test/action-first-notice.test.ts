import { describe, expect, it } from 'vitest';
import { startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { runStep } from './support/runner.js';
import { R } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * The built action, run as a runner runs it, waiting on the built kernel: the
 * first notice (holder and place) comes from the first ask, which the kernel
 * answers at once, not from a held ask that returns 8 s later. Timed from the
 * step's spawn, with a bound far above the 1 s target for two busy cores.
 */

const A = 'did:web:github.com:acme:shop:actions:runs:777:attempts:1:jobs:deploy:a1a1';
let kernel: KernelProcess | undefined;

closeAfterEach(() => [kernel]);

async function post(path: string, body: unknown) {
  const response = await fetch(`${kernel!.url}/api/v1/acp/coordination/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe('the first notice of a waiting job', () => {
  it('names the holder and the place at once, long before a held ask would return', async () => {
    kernel = await startKernelProcess(['--ttl-ms', '60000', '--quiet']);
    expect(await post('lease', { resource: R, actorDid: A })).toMatchObject({ ok: true });
    const notice = '::notice title=Waiting for lock%3Adeploy/production::';
    const main = await runStep('main', {
      inputs: { 'api-url': kernel.url, 'keep-alive': 'false', 'wait-timeout': '60s' },
      env: { INTRAMEDIAL_KEY: 'k' },
      mark: [notice],
      // A gives the lease back once B has said who holds it.
      onStdout: { when: notice, run: () => void post('release', { resource: R, actorDid: A }) },
    });
    expect(main.code, main.stdout + main.stderr).toBe(0);
    expect(main.outputs.acquired).toBe('true');
    expect(main.stdout).toContain(`${notice}lock:deploy/production is held by ${A}`);
    expect(main.stdout).toMatch(/next in line/);
    expect(main.stdout).not.toMatch(/next ask in/);
    // A held first ask returns only after 8 s (the 10 s request timeout minus 2 s).
    expect(main.marks[notice]).toBeLessThan(6_000);
  });
});
