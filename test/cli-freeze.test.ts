import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaneClient, type PlaneClient } from '../src/plane/client.js';
import { runCli, startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { A } from './support/names.js';
import { weekendWindow } from './support/windows.js';

/**
 * `lease-gate freeze` and `unfreeze` from the committed CLI against its kernel: the end a
 * freeze names (`--for`, `--until`), what a waiter is told, and bad input refused before any
 * request, with the input and its accepted form named, changing nothing.
 */

const ADMIN = 'admin-key-for-the-freeze-cli-test';

describe('lease-gate freeze and unfreeze', () => {
  let kernel: KernelProcess;
  let client: PlaneClient;
  const cli = (args: string[], env: Record<string, string> = { LEASE_GATE_ADMIN_KEY: ADMIN }) =>
    runCli([args[0]!, '--api-url', kernel.url, ...args.slice(1)], env);
  /** What a new holder is told now: frozen (with the operator's words and end) or granted. */
  const ask = async (resource: string) => {
    const answer = await client.lease({ resource, actorDid: A });
    if (answer.kind === 'granted') await client.release({ resource, actorDid: A });
    return answer;
  };

  beforeAll(async () => {
    kernel = await startKernelProcess(['--quiet'], { LEASE_GATE_ADMIN_KEY: ADMIN });
    client = createPlaneClient({ apiUrl: kernel.url });
  });
  afterAll(async () => {
    await client?.close();
    await kernel?.stop();
  });

  it('freezes for a duration: waiters are told why and until when; unfreeze lets them in', async () => {
    const R = 'lock:deploy/for-test';
    const before = Date.now();
    const frozen = await cli([
      'freeze',
      '--resource',
      R,
      '--reason',
      'release freeze',
      '--for',
      '90m',
    ]);
    expect(frozen).toMatchObject({ code: 0, stderr: '' });
    const until = /until (\S+);/.exec(frozen.stdout)?.[1];
    const untilMs = Date.parse(until ?? '');
    expect(untilMs - before).toBeGreaterThanOrEqual(90 * 60_000 - 1_000);
    expect(untilMs - Date.now()).toBeLessThanOrEqual(90 * 60_000 + 1_000);
    expect(await ask(R)).toMatchObject({
      kind: 'frozen',
      message: expect.stringContaining('release freeze'),
      untilMs,
    });

    expect(await cli(['unfreeze', '--resource', R])).toMatchObject({
      code: 0,
      stdout: `unfroze ${R}\n`,
    });
    expect(await ask(R)).toMatchObject({ kind: 'granted' });
    // Unfreezing what is not frozen changes nothing and says so (exit 1).
    expect(await cli(['unfreeze', '--resource', R])).toMatchObject({
      code: 1,
      stdout: `${R} was not frozen\n`,
    });
  });

  it('freezes until a time with its zone, and as JSON', async () => {
    const R = 'lock:deploy/until-test';
    const end = new Date(Math.ceil((Date.now() + 2 * 3_600_000) / 1000) * 1000);
    const iso = end.toISOString().replace('.000Z', 'Z');
    const frozen = await cli([
      'freeze',
      '--resource',
      R,
      '--reason',
      'maintenance',
      '--until',
      iso,
      '--json',
    ]);
    expect(frozen.code).toBe(0);
    expect(JSON.parse(frozen.stdout)).toMatchObject({
      resource: R,
      frozen: true,
      until: end.getTime(),
    });
    expect(await ask(R)).toMatchObject({ kind: 'frozen', untilMs: end.getTime() });
  });

  it('refuses bad input before any request, naming the input and its form, and changes nothing', async () => {
    const R = 'lock:deploy/bad-input-test';
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const cases: Array<[string[], RegExp, Record<string, string>?]> = [
      [
        ['--reason', 'x', '--for', '0m'],
        /Invalid --for '0m'\. Expected a duration such as '90m', '4h' or '3d' \(at most 366d\)\./,
      ],
      [['--reason', 'x', '--for', '400d'], /Invalid --for '400d'/],
      [
        ['--reason', 'x', '--until', '2026-12-24T18:00'],
        /Invalid --until '2026-12-24T18:00'\. Expected an ISO 8601 time with a zone/,
      ],
      [['--reason', 'x', '--until', '2020-01-01T00:00:00Z'], /in the future and within a year/],
      [['--reason', 'x', '--until', soon, '--for', '1h'], /Give --until or --for, not both\./],
      [['--for', '1h'], /freeze needs --reason TEXT \(1 to 1000 characters\)/],
      [['--reason', 'x'], /freeze needs the admin key in LEASE_GATE_ADMIN_KEY\./, {}],
    ];
    for (const [args, message, env] of cases) {
      const got = await cli(['freeze', '--resource', R, ...args], env);
      expect(got.code, args.join(' ')).toBe(2);
      expect(got.stderr).toMatch(message);
      expect(got.stderr).not.toMatch(/\n\s+at /);
    }
    expect(await ask(R)).toMatchObject({ kind: 'granted' });
  });

  it('says the admin key was refused when it is wrong, and freezes nothing', async () => {
    const R = 'lock:deploy/wrong-admin-test';
    const got = await cli(['freeze', '--resource', R, '--reason', 'x'], {
      LEASE_GATE_ADMIN_KEY: 'not-the-admin-key',
    });
    expect(got.code).toBe(1);
    expect(got.stderr).toMatch(/refused the admin key \(403\): check LEASE_GATE_ADMIN_KEY/);
    expect(got.stderr).not.toContain('not-the-admin-key');
    expect(await ask(R)).toMatchObject({ kind: 'granted' });
  });
});

describe('lease-gate kernel --windows', () => {
  it('refuses to start on a wrong windows file, naming the entry, the field and the form', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'windows-cli-'));
    try {
      const file = join(dir, 'windows.json');
      const window = weekendWindow();
      writeFileSync(
        file,
        JSON.stringify({ windows: [window, { ...window, name: 'late', schedule: '0 25 * * 5' }] }),
      );
      const got = await runCli(['kernel', '--port', '0', '--windows', file]);
      expect(got.code).toBe(2);
      expect(got.stderr).toContain(
        `${file}: entry 2 ("late"): schedule: hour '25': expected *, a number from 0 to 23`,
      );
      expect(got.stdout).not.toContain('listening');
      writeFileSync(file, JSON.stringify({ windows: [{ ...window, timeZone: 'Mars/Olympus' }] }));
      const zone = await runCli(['kernel', '--port', '0', '--windows', file]);
      expect(zone.code).toBe(2);
      expect(zone.stderr).toMatch(/entry 1 \("weekend"\): timeZone/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
