import { describe, expect, it } from 'vitest';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { A, B } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

let kernel: KernelProcess | undefined;

closeAfterEach(() => [kernel]);

describe('the lease-gate CLI', () => {
  it('prints usage and exits 2 without a command, 0 for --help', async () => {
    expect((await runCli([])).code).toBe(2);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['kernel', 'acquire', 'release', 'status', 'revoke']) {
      expect(help.stdout).toContain(`lease-gate ${command}`);
    }
    expect(help.stdout).toContain('Exit codes: 0 done, 1 refused');
  });

  it('exits 2 on an unknown command or flag, or a bad value, naming it', async () => {
    expect(await runCli(['deploy'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown command 'deploy'"),
    });
    expect(await runCli(['status', '--bogus'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--bogus'),
    });
    const bad = await runCli(['acquire', '--api-url', 'http://127.0.0.1:1', '--resource', 'a b']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      "Invalid --resource: 'a b'. Expected 1 to 256 printable characters",
    );
  });

  it('fails closed without a key for a remote plane', async () => {
    const result = await runCli(['status', '--api-url', 'https://plane.example.com']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No plane key: set LEASE_GATE_KEY (or INTRAMEDIAL_KEY');
  });

  it('acquires, shows, refuses, releases and revokes against its own kernel', async () => {
    kernel = await startKernelProcess(['--ttl-ms', '60000'], { LEASE_GATE_ADMIN_KEY: 'adm' });
    const env = { INTRAMEDIAL_API_URL: kernel.url };
    const got = await runCli(['acquire', '--actor-did', A, '--json'], env);
    expect(got.code).toBe(0);
    const granted = JSON.parse(got.stdout) as { lease: { fence: number } };
    expect(granted).toMatchObject({ outcome: 'granted', lease: { holder: A } });
    // A memory kernel's fences start from the clock (they rise across its restarts too).
    const { fence } = granted.lease;
    expect(Number.isSafeInteger(fence) && fence > 0).toBe(true);

    const status = await runCli(['status'], env);
    expect(status.stdout).toMatch(
      new RegExp(`^lock:deploy/production is held by ${A}: lease lease_\\w+, fence ${fence}\\b`),
    );

    const timeout = await runCli(['acquire', '--actor-did', B, '--wait-timeout', '0'], env);
    expect(timeout.code).toBe(1);
    expect(timeout.stderr).toMatch(
      new RegExp(`lock:deploy/production is held by ${A}; asked once \\(--wait-timeout 0\\)`),
    );

    expect((await runCli(['release', '--actor-did', B], env)).code).toBe(1);
    const released = await runCli(['release', '--actor-did', A, '--json'], env);
    expect(JSON.parse(released.stdout)).toMatchObject({ released: true });

    await runCli(['acquire', '--actor-did', B], env);
    expect((await runCli(['revoke', '--reason', 'incident'], env)).code).toBe(2);
    const revoked = await runCli(['revoke', '--reason', 'incident'], {
      ...env,
      LEASE_GATE_ADMIN_KEY: 'adm',
    });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(
      new RegExp(`^revoked lock:deploy/production: ended lease lease_\\w+ of ${B}\\n$`),
    );
    expect((await runCli(['status', '--json'], env)).stdout).toContain('"lease":null');
    expect(kernel.output()).toMatch(
      new RegExp(
        `revoke lock:deploy/production did:web:acme.example:agent:b \\S+ fence=${fence + 1} reason="incident"`,
      ),
    );
  });

  it('refuses to listen beyond loopback without a key', async () => {
    const result = await runCli(['kernel', '--host', '0.0.0.0', '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Refusing to listen on 0.0.0.0 without a credential');
  });

  it('stops cleanly on SIGINT', async () => {
    const k = await startKernelProcess([]);
    expect(await k.stop('SIGINT')).toBe(0);
  });
});
