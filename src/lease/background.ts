import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Lease } from '../plane/schema.js';
import { realSleep, type Sleep } from '../plane/time.js';
import { HelperError } from './errors.js';
import {
  helperCommand,
  helperEnv,
  spawnHelper,
  stopProcess,
  type HelperCommand,
} from './helpers.js';
import { createStatusFile, readStatusFile, type KeeperRecord } from './keeper-status.js';
import { LIMITS } from './session.js';

/**
 * The processes a job leaves running between its main and post steps: the
 * keeper, and for a dry run the local kernel. Each is the CLI, detached,
 * watching the runner process; post stops them.
 */

const KERNEL_START_TIMEOUT_MS = 10_000;
/** tsx compiles the CLI first when the action runs from source. */
const FROM_SOURCE_START_MS = 15_000;
const STOP_GRACE_MS = 5_000;

/** A fresh folder under RUNNER_TEMP, which the runner empties after the job. */
export function jobTempDir(prefix: string, env: NodeJS.ProcessEnv = process.env): string {
  return mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), `lease-gate-${prefix}-`));
}

export interface DryRunKernel {
  apiUrl: string;
  pid: number;
  dir: string;
}

/**
 * Starts this job's own kernel on loopback with a file store and waits for its
 * address; `onPid` is told the pid before anything else can fail.
 */
export async function startDryRunKernel(
  options: {
    env?: NodeJS.ProcessEnv;
    onPid?: (pid: number, dir: string) => void;
    helper?: HelperCommand;
  } = {},
): Promise<DryRunKernel> {
  const env = options.env ?? process.env;
  const helper = options.helper ?? helperCommand();
  const dir = jobTempDir('kernel', env);
  const log = join(dir, 'kernel.log');
  const args = ['kernel', '--port', '0', '--data-prefix', join(dir, 'state.json')];
  args.push('--exit-with-pid', String(process.ppid));
  const spawned = spawnHelper(helper, args, helperEnv('', env), log);
  const { pid } = spawned;
  options.onPid?.(pid, dir);
  const limit = helper.fromSource ? FROM_SOURCE_START_MS : KERNEL_START_TIMEOUT_MS;
  for (let waited = 0; waited < limit; waited += 25) {
    let first = '';
    try {
      first = readFileSync(log, 'utf8').split('\n')[0] ?? '';
    } catch {
      // not written yet
    }
    const match = /^lease-gate kernel listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
    if (match?.[1]) return { apiUrl: match[1], pid, dir };
    const ended = spawned.exited();
    if (ended) {
      throw new HelperError(`the local kernel exited (${ended}) before it listened; see ${log}`);
    }
    await realSleep(25);
  }
  await stopProcess(pid, STOP_GRACE_MS, realSleep);
  throw new HelperError(`the local kernel did not start within ${limit} ms; see ${log}`);
}

export function stopDryRunKernel(pid: number): Promise<boolean> {
  return stopProcess(pid, STOP_GRACE_MS, realSleep);
}

/**
 * Node flags for the keeper. It lives as long as the job and sends a few small requests a
 * minute, so it gives up a little CPU for memory (each measured alone over a 20 s hold on
 * Node 24.22.3, peak RSS; docs/performance.md, keeper):
 * - `--max-semi-space-size=1`: a young generation of 1 MB, not up to 16 (with `--liftoff-only`,
 *   89.4 → 72.8 MB when the keeper was the CLI; that flag, for undici's WebAssembly HTTP
 *   parser, went with undici: the client is on node:http since #59, no WebAssembly loads);
 * - `--no-opt --no-maglev`: JavaScript is never optimised either: −3.2 MiB, its CPU the same
 *   (0.65 against 0.7 % of a core with 1.5 s leases);
 * - `--no-sparkplug`: nor baseline-compiled, it stays bytecode: −0.9 MiB, 0.7 % of a core.
 * Each is V8's own switch of a compiler tier; none changes what the keeper does.
 */
export const KEEPER_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=1',
  '--no-opt',
  '--no-maglev',
  '--no-sparkplug',
];

/** What post finds in the keeper's command line before it signals that pid (helpers.ts). */
const KEEPER_MARKER = 'keeper';

export interface KeeperHandle {
  pid: number;
  statusFile: string;
  /** How the keeper ended, if it already has. */
  exited(): string | undefined;
}

/**
 * Starts the keeper. `onStarting` is told the status file before the spawn and
 * `onPid` the pid right after it, so that post can find both whatever fails next.
 */
export function spawnKeeper(options: {
  apiUrl: string;
  key: string;
  resource: string;
  actorDid: string;
  lease: Lease;
  /** The keeper asks the runner for its own OIDC tokens for this audience (instead of a key). */
  oidcAudience?: string | undefined;
  env?: NodeJS.ProcessEnv;
  helper?: HelperCommand;
  onStatusFile?: (file: string) => void;
  onPid?: (pid: number) => void;
}): KeeperHandle {
  const env = options.env ?? process.env;
  const helper = options.helper ?? helperCommand();
  const statusFile = join(jobTempDir('keeper', env), 'status.json');
  createStatusFile(statusFile);
  options.onStatusFile?.(statusFile);
  const spawned = spawnHelper(
    { ...helper, args: helper.keeperArgs },
    [
      '--api-url',
      options.apiUrl,
      '--resource',
      options.resource,
      '--actor-did',
      options.actorDid,
      '--lease',
      JSON.stringify(options.lease),
      '--status',
      statusFile,
      '--parent-pid',
      String(process.ppid),
      ...(options.oidcAudience ? ['--oidc-audience', options.oidcAudience] : []),
    ],
    helperEnv(options.key, env),
    undefined,
    KEEPER_NODE_FLAGS,
  );
  options.onPid?.(spawned.pid);
  return { pid: spawned.pid, statusFile, exited: spawned.exited };
}

/** Waits (bounded) for the keeper's first status record; undefined if it exited or never wrote one. */
export async function waitForKeeper(
  keeper: KeeperHandle,
  fromSource: boolean,
  sleep: Sleep = realSleep,
): Promise<KeeperRecord | undefined> {
  const limit = fromSource ? FROM_SOURCE_START_MS : LIMITS.keeperStartMs;
  for (let waited = 0; waited <= limit; waited += 25) {
    const record = readStatusFile(keeper.statusFile);
    if (record?.pid === keeper.pid) return record;
    if (keeper.exited()) break;
    await sleep(25);
  }
  // It may have written its record just before it exited.
  const last = readStatusFile(keeper.statusFile);
  return last?.pid === keeper.pid ? last : undefined;
}

/**
 * Waits (bounded) until the keeper has renewed once or ended: until then, whoever started it
 * keeps renewing, since a keeper that starts slowly (two busy cores) must not let a short lease
 * lapse between the grant and its first renewal. True once it renewed.
 */
export async function waitForFirstRenewal(
  keeper: KeeperHandle,
  limitMs: number,
  sleep: Sleep = realSleep,
): Promise<boolean> {
  for (let waited = 0; waited <= limitMs; waited += 25) {
    const record = readStatusFile(keeper.statusFile);
    if (record?.pid === keeper.pid && record.renewals > 0) return true;
    if (record?.ended || keeper.exited()) return false;
    await sleep(25);
  }
  return false;
}

/**
 * Stops the keeper (bounded), reads its last record, and removes the status
 * file: a keeper still running (its pid never saved) exits without renewing.
 */
export async function stopKeeper(
  pid: number | undefined,
  statusFile: string,
): Promise<KeeperRecord | undefined> {
  if (pid) await stopProcess(pid, STOP_GRACE_MS, realSleep, KEEPER_MARKER);
  const record = readStatusFile(statusFile);
  rmSync(statusFile, { force: true });
  return record;
}
