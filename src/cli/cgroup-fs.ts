import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../fs/processes.js';

/**
 * Where `run`'s cgroup (containment.ts) lives in the cgroup v2 filesystem: run's own cgroup
 * found through /proc, a new one made under it and tried, and those a killed run left.
 */

const CGROUP_PREFIX = 'lease-gate-run-';

/** A process's cgroup v2 path ("0::/a/b" in /proc/<pid>/cgroup), as its namespace shows it. */
export function cgroupPath(pid: number | 'self'): string | undefined {
  try {
    return /^0::(\/.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** Where run's own cgroup is: its directory in the cgroup2 mount and its path; undefined when none. */
function ownCgroup(): { dir: string; path: string } | undefined {
  let mountinfo: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return undefined;
  }
  const own = cgroupPath('self');
  // Outside run's cgroup namespace ("/../..") there is nothing of ours to write to.
  if (!own || own.split('/').includes('..')) return undefined;
  for (const line of mountinfo.split('\n')) {
    // "id parent major:minor root mountpoint opts [optional…] - fstype source superopts"
    const [before, after] = line.split(' - ');
    if (!before || !after?.startsWith('cgroup2 ')) continue;
    const [, , , root, point] = before.split(' ').map(unescapeMount);
    if (!root || !point) continue;
    if (root === '/' || own === root || own.startsWith(`${root}/`)) {
      return { dir: join(point, root === '/' ? own : own.slice(root.length)), path: own };
    }
  }
  return undefined;
}

/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(parseInt(octal, 8)),
  );
}

export interface Cgroup {
  dir: string;
  /** Its path as /proc/<pid>/cgroup names it. */
  path: string;
  parent: string;
}

/** A new cgroup under run's own, or undefined (no cgroup2, not allowed, read-only). */
export function makeCgroup(): Cgroup | undefined {
  const own = ownCgroup();
  if (!own) return undefined;
  const parent = own.dir;
  removeStale(parent);
  const name = `${CGROUP_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`;
  const dir = join(parent, name);
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  // Moving a process in needs write access to the common ancestor's cgroup.procs: try it now,
  // with no command yet, by moving run itself in and back.
  try {
    writeFileSync(join(dir, 'cgroup.procs'), String(process.pid));
  } catch {
    tryRmdir(dir);
    return undefined;
  }
  try {
    writeFileSync(join(parent, 'cgroup.procs'), String(process.pid));
  } catch {
    // Could not go back, so the cgroup holds run itself: not usable (cgroup.kill would kill run).
    return undefined;
  }
  return { dir, parent, path: join(own.path, name) };
}

const STALE = new RegExp(`^${CGROUP_PREFIX}(\\d+)-[0-9a-f]{8}$`);
/** Empty cgroups a killed `run` left behind (its pid gone); a busy one refuses rmdir. */
function removeStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = STALE.exec(name)?.[1];
    if (pid && !isAlive(Number(pid))) tryRmdir(join(parent, name));
  }
}

export function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}
