import { closeSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/**
 * True while any process of the group runs; zombies count as gone (an
 * orphan's zombie waits for an init that may reap it seconds later, and it
 * runs no code). Where /proc cannot be read, any member counts.
 */
export function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const list = listProcesses();
  if (!list) return true;
  return list.some((entry) => entry.pgrp === group && entry.state !== 'Z');
}

/** One line of /proc/<pid>/stat, the fields that place a process in a tree. */
export interface ProcessEntry {
  pid: number;
  /** R, S, D, Z, T, …: a zombie (Z) runs no code. */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** Clock ticks after boot: with the pid, names one process (pids are reused). */
  startTicks: number;
}

/** Parses /proc/<pid>/stat: "pid (comm) state ppid pgrp session … starttime(22) …". */
export function parseStat(pid: number, stat: string): ProcessEntry | undefined {
  // comm may hold spaces and parentheses: the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, pgrp, session] = [fields[0], ...fields.slice(1, 4).map(Number)];
  const startTicks = Number(fields[19]);
  if (!state || ![ppid, pgrp, session, startTicks].every(Number.isSafeInteger)) return undefined;
  return { pid, state, ppid: ppid!, pgrp: pgrp!, session: session!, startTicks };
}

/** Every process /proc shows now, or undefined where there is no /proc (macOS). */
export function listProcesses(): ProcessEntry[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const list: ProcessEntry[] = [];
  for (const name of names) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const entry = parseStat(Number(name), stat);
    if (entry) list.push(entry);
  }
  return list;
}

/** How much of a process's environment {@link hasEnvEntry} reads (Linux caps it near 2 MiB). */
export const ENVIRON_READ_LIMIT = 1024 * 1024;
let environBuffer: Buffer | undefined;

/**
 * True when `pid` runs as `uid` and its environment (/proc/<pid>/environ, as
 * it was at its execve, read up to {@link ENVIRON_READ_LIMIT}) holds exactly
 * the entry `name=value`. Any error (gone meanwhile, not ours) answers false.
 */
export function hasEnvEntry(pid: number, uid: number, name: string, value: string): boolean {
  const entry = Buffer.from(`${name}=${value}\0`);
  let fd: number | undefined;
  try {
    if (statSync(`/proc/${pid}`).uid !== uid) return false;
    fd = openSync(`/proc/${pid}/environ`, 'r');
    // One buffer for every read: the looks are synchronous, and most environments are small.
    environBuffer ??= Buffer.alloc(ENVIRON_READ_LIMIT);
    let length = 0;
    while (length < environBuffer.length) {
      const read = readSync(fd, environBuffer, length, environBuffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    const environ = environBuffer.subarray(0, length);
    // Entries are NUL-terminated: a match starts the buffer or follows a NUL.
    for (let at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) {
      if (at === 0 || environ[at - 1] === 0) return true;
    }
    return false;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
