import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAlive } from '../fs/processes.js';
import type { Sleep } from '../plane/time.js';
import { HelperError } from './errors.js';
import { HOSTED_KEY_ENV, KEY_ENV } from './settings.js';

/**
 * Helper processes are found from this module's own location — never from argv[1], which
 * under a runner emulator is the emulator's file: a dry run's kernel is the CLI, the keeper
 * its own small entry, which bundles only what renewing needs (docs/performance.md, keeper).
 * In a bundle (dist/<entry>/index.js) they are dist/cli/index.js and dist/keeper/index.js;
 * from source (tests, @github/local-action) src/bin/cli.ts and src/bin/keeper.ts under tsx.
 */
export interface HelperCommand {
  command: string;
  /** The CLI's: Node's arguments before the command's own. */
  args: string[];
  /** The keeper's, likewise. */
  keeperArgs: string[];
  fromSource: boolean;
}

export function helperCommand(moduleUrl: string = import.meta.url): HelperCommand {
  const here = dirname(fileURLToPath(moduleUrl));
  if (fileURLToPath(moduleUrl).endsWith('.ts')) {
    const root = join(here, '..', '..');
    const cli = join(root, 'src', 'bin', 'cli.ts');
    const keeper = join(root, 'src', 'bin', 'keeper.ts');
    const tsx = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
    for (const file of [cli, keeper, tsx]) {
      if (!existsSync(file)) throw new HelperError(`lease-gate cannot find its helper ${file}.`);
    }
    const args = ['--import', tsx, cli];
    return {
      command: process.execPath,
      args,
      keeperArgs: ['--import', tsx, keeper],
      fromSource: true,
    };
  }
  const [cli, keeper] = ['cli', 'keeper'].map((entry) => join(here, '..', entry, 'index.js'));
  for (const file of [cli!, keeper!]) {
    if (!existsSync(file)) {
      throw new HelperError(`lease-gate cannot find its helper ${file}; is dist/ complete?`);
    }
  }
  return { command: process.execPath, args: [cli!], keeperArgs: [keeper!], fromSource: false };
}

export interface SpawnedHelper {
  pid: number;
  /** How it ended ("exit code 1", "signal SIGKILL") if it has already exited, else undefined. */
  exited(): string | undefined;
}

/**
 * Starts the CLI detached so it outlives this step: its own process group, no
 * pipes to us (a runner waits for inherited pipes), output to a file if given.
 * `nodeFlags` go to Node itself, ahead of the CLI's path.
 */
export function spawnHelper(
  helper: HelperCommand,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile?: string,
  nodeFlags: readonly string[] = [],
): SpawnedHelper {
  const out = logFile ? openSync(logFile, 'a') : 'ignore';
  try {
    const child = spawn(helper.command, [...nodeFlags, ...helper.args, ...args], {
      detached: true,
      stdio: ['ignore', out, out],
      env,
    });
    let ended: string | undefined;
    child.on('error', (error) => (ended ??= error.message));
    child.on(
      'exit',
      (code, signal) => (ended ??= signal ? `signal ${signal}` : `exit code ${code}`),
    );
    child.unref();
    if (child.pid === undefined) throw new HelperError(`could not start ${helper.args.at(-1)}`);
    return { pid: child.pid, exited: () => ended };
  } finally {
    if (typeof out === 'number') closeSync(out);
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
  marker = 'cli',
): Promise<boolean> {
  if (!(pid > 0) || !isAlive(pid) || !runs(pid, marker)) return true;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return true;
  }
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

/**
 * An environment for a helper process: no step inputs or state, and the key the step
 * settled on as the only one (under KEY_ENV, read back by `keyFromEnv`), so a different
 * key left in the step's environment can never win in the helper.
 */
export function helperEnv(key: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('INPUT_') && !name.startsWith('STATE_')) out[name] = value;
  }
  delete out[KEY_ENV];
  delete out[HOSTED_KEY_ENV];
  if (key) out[KEY_ENV] = key;
  return out;
}
