import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeeperStatus } from '../gate/keep.js';
import { cliBundlePath, helperEnv, spawnDetached, stopProcess } from '../fs/processes.js';
import type { Lease } from '../plane/schema.js';
import { realSleep } from '../plane/time.js';

/**
 * The processes a job leaves running between its main and post steps: the
 * keeper, and for a dry run the local kernel. Each is detached (no pipes the
 * runner would wait on), watches the runner process, and is stopped by post.
 */

const KERNEL_START_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 5_000;

/** A fresh folder under RUNNER_TEMP, which the runner empties after the job. */
export function jobTempDir(prefix: string): string {
  return mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), `lease-gate-${prefix}-`));
}

export interface DryRunKernel {
  apiUrl: string;
  pid: number;
  dir: string;
}

/** Starts this job's own kernel on loopback with a file store, and waits for its address. */
export async function startDryRunKernel(): Promise<DryRunKernel> {
  const dir = jobTempDir('kernel');
  const log = join(dir, 'kernel.log');
  const pid = spawnDetached(
    cliBundlePath(),
    [
      'kernel',
      '--port',
      '0',
      '--state',
      join(dir, 'state.json'),
      '--exit-with-pid',
      String(process.ppid),
    ],
    helperEnv(''),
    log,
  );
  for (let waited = 0; waited < KERNEL_START_TIMEOUT_MS; waited += 25) {
    const first = readFileSync(log, 'utf8').split('\n')[0] ?? '';
    const match = /^lease-gate kernel listening on (http:\/\/\S+)$/.exec(first);
    if (match?.[1]) return { apiUrl: match[1], pid, dir };
    await realSleep(25);
  }
  await stopProcess(pid, STOP_GRACE_MS, realSleep);
  throw new Error(
    `the local kernel did not start within ${KERNEL_START_TIMEOUT_MS} ms; see ${log}`,
  );
}

export async function stopDryRunKernel(pid: number): Promise<boolean> {
  return stopProcess(pid, STOP_GRACE_MS, realSleep);
}

export interface StartedKeeper {
  pid: number;
  statusFile: string;
}

export function startKeeper(options: {
  apiUrl: string;
  key: string;
  resource: string;
  actorDid: string;
  lease: Lease;
}): StartedKeeper {
  const statusFile = join(jobTempDir('keeper'), 'status.json');
  const pid = spawnDetached(
    cliBundlePath(),
    [
      'keep',
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
    ],
    helperEnv(options.key),
  );
  return { pid, statusFile };
}

/** Stops the keeper (bounded) and returns the last status it wrote, if any. */
export async function stopKeeper(
  pid: number,
  statusFile: string,
): Promise<(KeeperStatus & { pid: number }) | undefined> {
  await stopProcess(pid, STOP_GRACE_MS, realSleep);
  try {
    return JSON.parse(readFileSync(statusFile, 'utf8')) as KeeperStatus & { pid: number };
  } catch {
    return undefined;
  }
}
