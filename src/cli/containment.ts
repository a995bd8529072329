import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  groupAlive,
  hasEnvEntry,
  listProcesses,
  parseStat,
  type ProcessEntry,
} from '../fs/processes.js';
import type { Sleep } from '../plane/time.js';
import { cgroupPath, makeCgroup, tryRmdir, type Cgroup } from './cgroup-fs.js';

/**
 * What `run` holds its command in, so that a loss stops all of it before the
 * lease is given back. The command is spawned as its own session and process
 * group (`detached`), which a descendant leaves by calling setsid(); so on
 * Linux `run` also holds it in
 *
 * - `cgroup`: a cgroup v2 of its own, created under run's own cgroup. A
 *   process cannot leave it without the right to write another cgroup's
 *   `cgroup.procs` (root can), and everything in it is killed at once by
 *   `cgroup.kill` (Linux ≥ 5.14; before, each pid in `cgroup.procs` until none
 *   is left). Needs a writable cgroup2 mount: root, or a delegated subtree.
 * - `tree`, where no cgroup can be made: the command's descendants, found in
 *   /proc every {@link TRACK_EVERY_MS} and at the stop, by parent, by session
 *   (a process that called setsid() is followed by its parent, and its
 *   children by its session once it exits), and by the run's mark in their
 *   environment ({@link RUN_ID_ENV}, which every descendant inherits): a
 *   daemon that forks, calls setsid(), forks again and lets the middle process
 *   exit within one interval leaves parent and session, but not the mark. What
 *   is lost: such a daemon that also cleared or rewrote its environment, and
 *   another user's processes.
 * - `group`, with no /proc (macOS): the process group only, as before.
 */
export type ContainmentKind = 'cgroup' | 'tree' | 'group';

export interface Containment {
  readonly kind: ContainmentKind;
  /** Starts the command inside (detached: its own session and group). */
  spawn(file: string, args: string[], options: SpawnOptions): ChildProcess;
  /** The signal to the command's process group (what a terminal would reach). */
  signalGroup(signal: NodeJS.Signals): void;
  /** True while anything of the command runs (zombies aside). */
  alive(): boolean;
  /**
   * SIGTERM to all of it, up to `graceMs` for it to go, then SIGKILL until
   * nothing is left (a process stuck in the kernel, state D, is waited for
   * at most {@link KILL_WAIT_MS}).
   */
  stop(graceMs: number, sleep: Sleep): Promise<void>;
  /** Ends the tracking and removes the cgroup (it is empty after a stop). */
  dispose(): void;
}

/** How often the `tree` containment looks for new descendants in /proc (about 2 ms a look for 100 processes). */
export const TRACK_EVERY_MS = 250;
/** After SIGKILL, how long a stop waits for the processes to be gone. */
export const KILL_WAIT_MS = 5_000;
const POLL_MS = 50;
/**
 * The command's environment gets `LEASE_GATE_RUN_ID=<128-bit hex>`, one per run: the lease id
 * (also given) names the lease, which a later run of the same holder may share.
 */
export const RUN_ID_ENV = 'LEASE_GATE_RUN_ID';

/**
 * A cgroup when `cgroup` and Linux allow one (`LEASE_GATE_RUN_CGROUP=0` says no), else the
 * tree; `trackEveryMs` is the tree's interval between looks (tests look only when they ask).
 */
export function contain(options: { cgroup: boolean; trackEveryMs?: number }): Containment {
  const cgroup = options.cgroup ? makeCgroup() : undefined;
  return cgroup
    ? new CgroupContainment(cgroup)
    : new TreeContainment(options.trackEveryMs ?? TRACK_EVERY_MS);
}

function kill(pid: number, signal: NodeJS.Signals | 0): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone, or not ours
  }
}

abstract class Base {
  protected root: number | undefined;
  /** This run's mark, in the command's environment (see {@link RUN_ID_ENV}). */
  protected readonly runId = randomBytes(16).toString('hex');

  spawn(file: string, args: string[], options: SpawnOptions): ChildProcess {
    const env = { ...(options.env ?? process.env), [RUN_ID_ENV]: this.runId };
    const child = spawn(file, args, { ...options, env, detached: true });
    this.root = child.pid;
    return child;
  }

  signalGroup(signal: NodeJS.Signals): void {
    if (this.root !== undefined) kill(-this.root, signal);
  }

  protected groupAlive(): boolean {
    return this.root !== undefined && groupAlive(this.root);
  }

  abstract alive(): boolean;
  protected abstract signalAll(signal: NodeJS.Signals): void;

  async stop(graceMs: number, sleep: Sleep): Promise<void> {
    this.signalAll('SIGTERM');
    for (let waited = 0; waited < graceMs && this.alive(); waited += POLL_MS) await sleep(POLL_MS);
    for (let waited = 0; waited <= KILL_WAIT_MS && this.alive(); waited += POLL_MS) {
      this.signalAll('SIGKILL');
      await sleep(POLL_MS);
    }
  }
}

class CgroupContainment extends Base implements Containment {
  readonly kind = 'cgroup';
  /** Whether run is (still) inside: then cgroup.kill would kill run too. */
  private selfInside = false;

  constructor(private readonly cgroup: Cgroup) {
    super();
  }

  override spawn(file: string, args: string[], options: SpawnOptions): ChildProcess {
    // The child is forked from run while run is in the cgroup, so it is inside before it runs a
    // single instruction of the command: no fork of it can happen outside.
    const procs = join(this.cgroup.dir, 'cgroup.procs');
    try {
      writeFileSync(procs, String(process.pid));
      this.selfInside = true;
    } catch {
      // the child is moved right after the spawn instead
    }
    try {
      const child = super.spawn(file, args, options);
      // Another thread of run's process may have moved it meanwhile (tests run several in one).
      if (child.pid !== undefined && cgroupPath(child.pid) !== this.cgroup.path) {
        try {
          writeFileSync(procs, String(child.pid));
        } catch {
          // it exited already
        }
      }
      return child;
    } finally {
      try {
        writeFileSync(join(this.cgroup.parent, 'cgroup.procs'), String(process.pid));
        this.selfInside = false;
      } catch {
        // stays inside: signalAll skips run's own pid, and dispose tries again
      }
    }
  }

  private members(): number[] {
    try {
      return readFileSync(join(this.cgroup.dir, 'cgroup.procs'), 'utf8')
        .split('\n')
        .filter((line) => /^\d+$/.test(line))
        .map(Number)
        .filter((pid) => pid !== process.pid);
    } catch {
      return [];
    }
  }

  /**
   * The kernel's own word (cgroup.events): cgroup.procs drops a process once its last thread
   * starts to exit, but rmdir is refused (EBUSY) until every thread has left, a window that
   * widens on a loaded machine. While run itself is inside, the flag says nothing of the command.
   */
  private populated(): boolean {
    if (this.selfInside) return false;
    try {
      return /^populated 1$/m.test(readFileSync(join(this.cgroup.dir, 'cgroup.events'), 'utf8'));
    } catch {
      return false;
    }
  }

  alive(): boolean {
    // cgroup.procs lists no zombies; the group is asked too, for a member that moved out.
    return this.members().length > 0 || this.groupAlive() || this.populated();
  }

  protected signalAll(signal: NodeJS.Signals): void {
    if (signal === 'SIGKILL' && !this.selfInside) {
      try {
        // Atomic: the kernel kills every process in it, and any it forks meanwhile.
        writeFileSync(join(this.cgroup.dir, 'cgroup.kill'), '1');
      } catch {
        // Linux < 5.14: one by one below, again on each poll until none is left
      }
    }
    for (const pid of this.members()) kill(pid, signal);
    this.signalGroup(signal);
  }

  dispose(): void {
    if (this.selfInside) {
      try {
        writeFileSync(join(this.cgroup.parent, 'cgroup.procs'), String(process.pid));
        this.selfInside = false;
      } catch {
        return;
      }
    }
    // Busy only if something survived the stop; a later run's removeStale takes it then.
    if (existsSync(this.cgroup.dir)) tryRmdir(this.cgroup.dir);
  }
}

/** The command's descendants, followed in /proc by parent, by session and by the run's mark. */
class TreeContainment extends Base implements Containment {
  readonly kind: ContainmentKind;
  /** pid → start time of each process known to be the command's. */
  private known = new Map<number, number>();
  /** The command's start time: nothing that started before can carry its mark. */
  private rootStart: number | undefined;
  private readonly uid = process.getuid?.();
  /** Sessions the known processes were in at the last look. */
  private sessions = new Set<number>();
  private readonly own = ownSession();
  private tracker: NodeJS.Timeout | undefined;

  constructor(private readonly trackEveryMs: number) {
    super();
    this.kind = listProcesses() ? 'tree' : 'group';
  }

  override spawn(file: string, args: string[], options: SpawnOptions): ChildProcess {
    const child = super.spawn(file, args, options);
    if (this.kind === 'tree' && child.pid !== undefined) {
      this.sessions.add(child.pid); // detached: the child leads a session of its own
      this.look();
      this.tracker = setInterval(() => this.look(), this.trackEveryMs);
      this.tracker.unref();
    }
    return child;
  }

  /** The command's running processes now, adding what descends from the known ones. */
  private look(): ProcessEntry[] {
    const list = listProcesses() ?? [];
    const byPid = new Map(list.map((entry) => [entry.pid, entry]));
    const found = new Map<number, ProcessEntry>();
    for (const [pid, start] of this.known) {
      const entry = byPid.get(pid);
      if (entry && entry.startTicks === start && entry.state !== 'Z') found.set(pid, entry);
    }
    const root = this.root;
    if (root !== undefined) this.rootStart ??= byPid.get(root)?.startTicks;
    const sessions = new Set(this.sessions);
    for (const entry of list) {
      if (this.marked(entry, found)) {
        found.set(entry.pid, entry);
        sessions.add(entry.session);
      }
    }
    for (let grew = true; grew;) {
      grew = false;
      for (const entry of list) {
        if (found.has(entry.pid) || entry.state === 'Z' || !this.mayHold(entry)) continue;
        const ours =
          entry.pid === root ||
          entry.pgrp === root ||
          sessions.has(entry.session) ||
          found.has(entry.ppid);
        if (!ours) continue;
        found.set(entry.pid, entry);
        sessions.add(entry.session);
        grew = true;
      }
    }
    this.known = new Map([...found.values()].map((entry) => [entry.pid, entry.startTicks]));
    // A session is followed while it had a known member at the last look: a setsid() child
    // that exits leaves its own children (parent now init) in its session.
    this.sessions = new Set([...found.values()].map((entry) => entry.session));
    if (root !== undefined) this.sessions.add(root);
    return [...found.values()];
  }

  /** A process of run's uid, not yet found, whose environment carries this run's mark. */
  private marked(entry: ProcessEntry, found: Map<number, ProcessEntry>): boolean {
    if (this.uid === undefined || found.has(entry.pid) || entry.state === 'Z') return false;
    if (!this.mayHold(entry)) return false;
    if (this.rootStart !== undefined && entry.startTicks < this.rootStart) return false;
    return hasEnvEntry(entry.pid, this.uid, RUN_ID_ENV, this.runId);
  }

  /** Never run itself, init, or anything of run's own session. */
  private mayHold(entry: ProcessEntry): boolean {
    return entry.pid !== process.pid && entry.pid !== 1 && entry.session !== this.own;
  }

  alive(): boolean {
    if (this.kind === 'group') return this.groupAlive();
    return this.look().length > 0 || this.groupAlive();
  }

  protected signalAll(signal: NodeJS.Signals): void {
    if (this.kind === 'tree') {
      // Stopped processes cannot fork: stop them until a look finds no new one, then signal.
      const stopped = new Set<number>();
      for (let fresh = this.look(); fresh.length > 0;) {
        for (const entry of fresh) kill(entry.pid, 'SIGSTOP');
        fresh.forEach((entry) => stopped.add(entry.pid));
        fresh = this.look().filter((entry) => !stopped.has(entry.pid));
      }
      for (const pid of stopped) kill(pid, signal);
      if (signal !== 'SIGKILL') for (const pid of stopped) kill(pid, 'SIGCONT');
    }
    this.signalGroup(signal);
  }

  dispose(): void {
    clearInterval(this.tracker);
  }
}

/** run's own session, which the command never shares (it leads its own). */
function ownSession(): number | undefined {
  try {
    return parseStat(process.pid, readFileSync('/proc/self/stat', 'utf8'))?.session;
  } catch {
    return undefined;
  }
}
