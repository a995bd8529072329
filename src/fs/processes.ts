import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import type { Sleep } from '../plane/time.js';

/**
 * Starts a node script that outlives this step: its own process group, no pipes
 * to us (a runner waits for inherited pipes), stdout to a file if given.
 */
export function spawnDetached(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile?: string,
): number {
  const out = logFile ? openSync(logFile, 'a') : 'ignore';
  try {
    const child = spawn(process.execPath, [script, ...args], {
      detached: true,
      stdio: ['ignore', out, out],
      env,
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${script}`);
    return child.pid;
  } finally {
    if (typeof out === 'number') closeSync(out);
  }
}

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

/** False when /proc shows that `pid` now runs something else (the pid was reused). */
function runs(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return true;
  }
}

/**
 * SIGTERM, then SIGKILL if it is still there after `graceMs`; only if its
 * command line still holds `marker`. True when it is gone.
 */
export async function stopProcess(
  pid: number,
  graceMs: number,
  sleep: Sleep,
  marker = 'index.js',
): Promise<boolean> {
  if (!isAlive(pid) || !runs(pid, marker)) return true;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < graceMs; waited += 25) {
    await sleep(25);
    if (!isAlive(pid)) return true;
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone in the meantime
  }
  await sleep(50);
  return !isAlive(pid);
}

/** An environment for a helper process: the key under its documented name, no step inputs. */
export function helperEnv(key: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('INPUT_') && !name.startsWith('STATE_')) env[name] = value;
  }
  if (key) env.INTRAMEDIAL_KEY = key;
  else delete env.INTRAMEDIAL_KEY;
  return env;
}
