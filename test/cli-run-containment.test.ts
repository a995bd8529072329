import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contain, type Containment } from '../src/cli/containment.js';
import { runCommand } from '../src/cli/run-command.js';
import { UsageError } from '../src/cli/options.js';
import { isAlive } from '../src/fs/processes.js';
import { realSleep } from '../src/plane/time.js';

/**
 * What `run` holds its command in (src/cli/containment.ts), with real
 * processes: a command whose child calls setsid() and, once run has looked,
 * starts a grandchild in that session and exits, so the grandchild is an
 * orphan outside run's process group, found neither by group nor by parent.
 */

let dir = '';
let contained: Containment | undefined;
const pids: number[] = [];
const cgroups: string[] = [];

afterEach(() => {
  // Whatever a failing case left running goes (pids checked against this test's script).
  for (const pid of pids.splice(0)) {
    const cmdline = existsSync(`/proc/${pid}/cmdline`)
      ? readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      : '';
    if (cmdline.includes(dir)) process.kill(pid, 'SIGKILL');
  }
  contained?.dispose();
  contained = undefined;
  for (const cgroup of cgroups.splice(0)) if (existsSync(cgroup)) rmdirSync(cgroup);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The command: starts a `detached` (setsid) middle process that writes `ready`, waits for
 * `go`, starts the grandchild (a sleeper that writes its pid) and exits.
 */
const SCRIPT = `const fs = require('fs');
const { spawn } = require('child_process');
const [role, d] = [process.env.ROLE, process.env.DIR];
const start = (ROLE, detached) =>
  spawn(process.execPath, [__filename], { env: { ...process.env, ROLE }, stdio: 'ignore', detached }).unref();
// Written whole, then renamed: the test reads a pid file as soon as it exists.
const pidFile = d + '/' + (role || 'root') + '.pid';
fs.writeFileSync(pidFile + '.tmp', String(process.pid));
fs.renameSync(pidFile + '.tmp', pidFile);
if (!role) { start('middle', true); setInterval(() => {}, 1000); }
if (role === 'middle') {
  fs.writeFileSync(d + '/ready', '');
  const wait = setInterval(() => {
    if (!fs.existsSync(d + '/go')) return;
    clearInterval(wait);
    start('grandchild', false);
    const done = setInterval(() => fs.existsSync(d + '/grandchild.pid') && process.exit(0), 5);
  }, 5);
}
if (role === 'grandchild') setInterval(() => {}, 1000);`;

async function until(ready: () => boolean, what: string) {
  const end = Date.now() + 30_000;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await realSleep(10);
  }
}

function pidOf(role: string): number {
  const pid = Number(readFileSync(join(dir, `${role}.pid`), 'utf8'));
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${role}.pid holds no pid`);
  return pid;
}

/** Runs the scenario in `contained`; returns the grandchild's pid once the middle is gone. */
async function orphanedGrandchild(c: Containment): Promise<number> {
  dir = mkdtempSync(join(tmpdir(), 'lease-gate-contain-'));
  const script = join(dir, 'tree.cjs');
  writeFileSync(script, SCRIPT);
  const child = c.spawn(process.execPath, [script], {
    stdio: 'ignore',
    env: { PATH: process.env.PATH ?? '', DIR: dir },
  });
  pids.push(child.pid!);
  await until(() => existsSync(join(dir, 'ready')), 'the middle process');
  pids.push(pidOf('root'), pidOf('middle'));
  expect(c.alive()).toBe(true); // a look: it sees the root and the middle
  writeFileSync(join(dir, 'go'), '');
  await until(() => existsSync(join(dir, 'grandchild.pid')), 'the grandchild');
  const grandchild = pidOf('grandchild');
  pids.push(grandchild);
  await until(() => !isAlive(pidOf('middle')), 'the middle to exit');
  return grandchild;
}

const linux = process.platform === 'linux';

describe.runIf(linux)('run’s containment', () => {
  it('without a cgroup follows the tree in /proc: an orphan in a setsid() child’s session is stopped', async () => {
    // No timed looks: the only ones are the test's (alive()) and the stop's, so the grandchild,
    // started after the last and orphaned before the stop, is found by its session alone.
    contained = contain({ cgroup: false, trackEveryMs: 3_600_000 });
    expect(contained.kind).toBe('tree');
    const grandchild = await orphanedGrandchild(contained);
    const stat = readFileSync(`/proc/${grandchild}/stat`, 'utf8');
    // Outside the command's group and no longer its descendant: only its session names it.
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])).not.toBe(pidOf('root'));
    expect(contained.alive()).toBe(true);
    await contained.stop(5_000, realSleep);
    expect([pidOf('root'), grandchild].map(isAlive)).toEqual([false, false]);
    expect(contained.alive()).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)(
    'in a cgroup stops the same orphan, and removes the cgroup (and one a killed run left)',
    async () => {
      const own = /^0::(\/.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))![1]!;
      const mount = readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .find((l) => l.includes(' - cgroup2 '))!
        .split(' ')[4]!;
      const parent = join(mount, own);
      // A cgroup a killed run left: its pid is gone (an exited child's).
      const gone = spawn(process.execPath, ['-e', '0']);
      await new Promise((done) => gone.on('exit', done));
      const stale = join(parent, `lease-gate-run-${gone.pid}-0badcafe`);
      mkdirSync(stale);
      cgroups.push(stale);
      contained = contain({ cgroup: true });
      expect(contained.kind).toBe('cgroup');
      expect(existsSync(stale)).toBe(false);
      const grandchild = await orphanedGrandchild(contained);
      const path = /^0::(\/.*)$/m.exec(readFileSync(`/proc/${grandchild}/cgroup`, 'utf8'))![1]!;
      expect(path).toMatch(/\/lease-gate-run-\d+-[0-9a-f]{8}$/);
      expect(/^0::(\/.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))![1]).toBe(own);
      await contained.stop(5_000, realSleep);
      expect([pidOf('root'), grandchild].map(isAlive)).toEqual([false, false]);
      contained.dispose();
      expect(existsSync(join(mount, path))).toBe(false);
    },
  );
});

describe('LEASE_GATE_RUN_CGROUP', () => {
  it('takes 0 or 1 and names itself otherwise, before asking the plane', async () => {
    const io = { out: () => {}, err: () => {} };
    const asked = runCommand(
      ['--actor-did', 'did:web:a.example', '--api-url', 'http://127.0.0.1:9', '--', 'true'],
      io,
      { LEASE_GATE_RUN_CGROUP: 'yes' },
    );
    await expect(asked).rejects.toThrow(UsageError);
    await expect(asked).rejects.toThrow(
      "Invalid LEASE_GATE_RUN_CGROUP 'yes'. Expected 0 (no cgroup) or 1 (a cgroup where Linux allows one, the default).",
    );
  });
});
