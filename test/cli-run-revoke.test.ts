import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  RACE_RESOURCE,
  ledgerEntries,
  queued,
  startRace,
  until,
  type Race,
} from '../bench/revoke-race.js';
import { isAlive } from '../src/fs/processes.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * A revoke between two real `lease-gate run`s (from source) on a real kernel
 * process: A's command tree stops at once, and B's starts only after it.
 */

let race: Race | undefined;

closeAfterEach(() => [race]);

describe('lease-gate run revoked', () => {
  it('stops its command tree within 1 s, and the next holder starts only after it', async () => {
    race = await startRace();
    const a = race.run('a');
    // Both of A's processes write before anything else happens.
    await until(() => race!.lines().has('a-child'), 60_000, "A's command tree");
    const b = race.run('b');
    await until(() => queued(race!.url, 'b'), 60_000, 'B waiting');
    const revokedAt = Date.now();
    // Markup stays text (a control character is refused by the kernel: kernel-reason-text).
    await race.revoke('incident 42 <b>stop</b>');
    const code = await a.exited;
    await until(() => race!.lines().has('b-child'), 60_000, "B's command tree");
    b.child.kill('SIGTERM');
    await b.exited;

    const lines = race.lines();
    const lastA = Math.max(...lines.get('a')!, ...lines.get('a-child')!);
    const firstB = Math.min(...lines.get('b')!, ...lines.get('b-child')!);
    // Nothing of A wrote after B's first line: one holder at a time, at the edges too.
    expect(lastA).toBeLessThan(firstB);
    // A's whole tree stopped within 1 s of the revoke (it renews only every 10 s).
    expect(lastA - revokedAt).toBeLessThan(1_000);
    expect(code).toBe(143);
    const stderr = a.stderr();
    // The plane's time of the end, the reason and the operator's message, escaped to one line.
    expect(stderr).toMatch(
      new RegExp(
        `Lost ${RACE_RESOURCE} at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(plane's clock\\): an operator revoked the lease: incident 42 <b>stop</b>\\. Stopping the command\\.`,
      ),
    );
    const at = Date.parse(/Lost \S+ at (\S+)/.exec(stderr)![1]!);
    expect(Math.abs(at - revokedAt)).toBeLessThan(2_000);
  });
});

/** The cgroup2 mount point, when this process may make cgroups there (root on Linux). */
function cgroupMount(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .find((l) => l.includes(' - cgroup2 '));
  const [, , , root, point] = line?.split(' ') ?? [];
  return root === '/' && point && !point.includes('\\') ? point : undefined;
}

describe.each<[string, NodeJS.ProcessEnv]>([
  ['its own cgroup', {}],
  ['its tree followed in /proc (LEASE_GATE_RUN_CGROUP=0)', { LEASE_GATE_RUN_CGROUP: '0' }],
])('lease-gate run revoked, a child that left the group by setsid(), in %s', (_, env) => {
  it('stops that child too before the next holder is granted', async () => {
    race = await startRace();
    const a = race.run('a', { escape: true, env });
    await until(
      () => race!.lines().has('a-child') && race!.lines().has('a-escaped'),
      60_000,
      "A's command tree and its escaped child",
    );
    const b = race.run('b');
    await until(() => queued(race!.url, 'b'), 60_000, 'B waiting');
    await race.revoke('incident 43');
    expect(await a.exited).toBe(143);
    // B's tree writes every 10 ms: once it wrote 30 lines, a writer of A left running would show.
    await until(() => (race!.lines().get('b-child')?.length ?? 0) >= 30, 60_000, "B's tree");
    b.child.kill('SIGTERM');
    await b.exited;

    const lines = race.lines();
    const lastA = Math.max(...['a', 'a-child', 'a-escaped'].flatMap((w) => lines.get(w)!));
    const entries = await ledgerEntries(race.url);
    const revoke = entries.findLast((e) => e.kind === 'revoke');
    const grant = entries.find(
      (e) => e.kind === 'grant' && e.actorDid.endsWith(':b') && e.tsMs >= revoke!.tsMs,
    );
    // Nothing of A, the escaped child included, wrote after B was granted.
    expect(lastA).toBeLessThan(grant!.tsMs);

    const cgroups = race.cgroups();
    const mount = cgroupMount();
    const path = cgroups.get('a-escaped')!;
    if (env.LEASE_GATE_RUN_CGROUP === '0' || !mount) {
      expect(path).not.toMatch(/lease-gate-run-/);
    } else {
      // All three in one cgroup of run's, removed once empty.
      expect(path).toMatch(/\/lease-gate-run-\d+-[0-9a-f]{8}$/);
      expect([cgroups.get('a'), cgroups.get('a-child')]).toEqual([path, path]);
      expect(existsSync(join(mount, path))).toBe(false);
    }
  });
});

describe('lease-gate run revoked, without a cgroup (LEASE_GATE_RUN_CGROUP=0)', () => {
  it('stops a daemon that double-forked into a session of its own (found by the run’s mark)', async () => {
    race = await startRace();
    // The subshell backgrounds setsid and exits at once: the writer is a child of init in a new
    // session, outside the command's tree and every session run saw, and (as daemons do) holds
    // none of run's descriptors. Its command line names the race's file, so race.close() kills
    // it should it survive.
    const daemon = `while :; do echo "a-daemon $(date +%s%3N) $$" >> "${race.out}"; sleep 0.05; done`;
    const a = race.run('a', {
      env: { LEASE_GATE_RUN_CGROUP: '0' },
      command: [
        'bash',
        '-c',
        `( setsid bash -c '${daemon}' </dev/null >/dev/null 2>&1 & ); exec "${process.execPath}" "${race.script}"`,
      ],
    });
    await until(
      () => race!.lines().has('a') && (race!.lines().get('a-daemon')?.length ?? 0) >= 3,
      60_000,
      "A's command and its daemon",
    );
    const b = race.run('b');
    await until(() => queued(race!.url, 'b'), 60_000, 'B waiting');
    await race.revoke('incident 44');
    expect(await a.exited).toBe(143);
    // The daemon writes every 50 ms: once B's tree wrote 30 lines (10 ms each) and B exited,
    // a daemon left running would have written after B's grant.
    await until(() => (race!.lines().get('b-child')?.length ?? 0) >= 30, 60_000, "B's tree");
    b.child.kill('SIGTERM');
    await b.exited;

    const entries = await ledgerEntries(race.url);
    const revoke = entries.findLast((e) => e.kind === 'revoke');
    const grant = entries.find(
      (e) => e.kind === 'grant' && e.actorDid.endsWith(':b') && e.tsMs >= revoke!.tsMs,
    );
    const lastA = Math.max(...['a', 'a-daemon'].flatMap((w) => race!.lines().get(w)!));
    expect(lastA).toBeLessThan(grant!.tsMs);
    // And it is gone, not merely stopped (a SIGSTOPped writer would resume on SIGCONT).
    const pids = readFileSync(race.out, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('a-daemon '))
      .map((line) => Number(line.split(' ')[2]));
    expect(pids.length).toBeGreaterThan(0);
    // A zombie counts as gone: it runs no code, and init reaps it when it will.
    expect([...new Set(pids)].filter(isAlive)).toEqual([]);
  });
});
