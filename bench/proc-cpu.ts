import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time from /proc (Linux only), for the PostgreSQL cost figures: the plane's processes
 * (every thread), every `postgres` process with what the postmaster reaped, and the whole
 * machine, sampled before and after a load and subtracted.
 */

const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim() || 100);

export interface Sample {
  at: number;
  planeTicks: number;
  databaseTicks: number;
  machineBusy: number;
  machineAll: number;
}

export function sample(pids: number[]): Sample {
  const [busy, all] = machineTicks();
  return {
    at: performance.now(),
    planeTicks: pids.reduce((sum, pid) => sum + (processTicks(pid) ?? 0), 0),
    databaseTicks: postgresTicks(),
    machineBusy: busy,
    machineAll: all,
  };
}

export function spent(a: Sample, b: Sample) {
  return {
    seconds: (b.at - a.at) / 1000,
    planeMs: (b.planeTicks - a.planeTicks) * TICK_MS,
    databaseMs: (b.databaseTicks - a.databaseTicks) * TICK_MS,
    machineMs: (b.machineBusy - a.machineBusy) * TICK_MS,
    busy: (b.machineBusy - a.machineBusy) / (b.machineAll - a.machineAll || 1),
  };
}

/**
 * utime + stime of a process (every thread), and with `reaped` the CPU of
 * the children it has waited for, from /proc/<pid>/stat; undefined when gone.
 */
function processTicks(pid: number | string, reaped = false): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // After "pid (comm) ": state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const f = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return f[11]! + f[12]! + (reaped ? f[13]! + f[14]! : 0);
}

/**
 * Every `postgres` process's CPU, with what the postmaster reaped: a backend
 * that exits within the span (pgbench's do) still counts, in its parent's.
 */
function postgresTicks(): number {
  let sum = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm === 'postgres') sum += processTicks(pid, true) ?? 0;
  }
  return sum;
}

/** The machine's busy and total ticks over every core, from /proc/stat. */
function machineTicks(): [number, number] {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
    line.split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return [busy, busy + idle + iowait];
}
