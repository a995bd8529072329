import { spawn } from 'node:child_process';
import { describeHolder } from '../action/did.js';
import { formatDuration } from '../gate/duration.js';
import { keepLease, type KeeperStatus } from '../gate/keep.js';
import { waitForLease } from '../gate/wait.js';
import { realSleep, systemClock } from '../plane/time.js';
import {
  EXIT,
  PLANE_OPTIONS,
  UsageError,
  clientFor,
  parse,
  settingsFromFlags,
  type Output,
} from './options.js';

const TERMINATE_GRACE_MS = 10_000;
const RELEASE_BUDGET_MS = 30_000;
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `lease-gate run -- <command>`: hold the lease for exactly as long as the
 * command runs, renewing it in-process, and exit with the command's code.
 */
export async function runCommand(
  args: string[],
  io: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const split = args.indexOf('--');
  const command = split < 0 ? [] : args.slice(split + 1);
  const { values } = parse(split < 0 ? args : args.slice(0, split), {
    ...PLANE_OPTIONS,
    'on-lost': { type: 'string', default: 'terminate' },
  });
  if (command.length === 0)
    throw new UsageError('run needs a command after --, as in: lease-gate run -- ./deploy.sh');
  const onLost = values['on-lost'];
  if (onLost !== 'terminate' && onLost !== 'warn') {
    throw new UsageError(`Invalid --on-lost '${onLost}'. Expected 'terminate' or 'warn'.`);
  }
  const settings = settingsFromFlags(values, env);
  const client = clientFor(settings);
  const request = { resource: settings.resource, actorDid: settings.actorDid };

  const cancelWait = new AbortController();
  const onWaitSignal = () => cancelWait.abort();
  for (const signal of FORWARDED) process.once(signal, onWaitSignal);
  const waited = await waitForLease({
    client,
    ...request,
    timeoutMs: settings.waitTimeoutMs,
    clock: systemClock,
    sleep: realSleep,
    random: Math.random,
    signal: cancelWait.signal,
    onHeld: (e) =>
      io.err(
        `lease-gate: ${settings.resource} is held by ${describeHolder(e.holder)}; next ask in ${formatDuration(e.nextAskInMs)}`,
      ),
  }).finally(() => FORWARDED.forEach((signal) => process.off(signal, onWaitSignal)));
  if (waited.outcome !== 'granted') {
    io.err(
      waited.outcome === 'timeout'
        ? `lease-gate: timed out after ${formatDuration(waited.waitedMs)}; ${settings.resource} is held by ${describeHolder(waited.holder)}. The command did not run.`
        : 'lease-gate: cancelled while waiting; the command did not run.',
    );
    return EXIT.refused;
  }
  const fence = waited.lease.fence === undefined ? '' : `, fence ${waited.lease.fence}`;
  io.err(
    `lease-gate: holding ${settings.resource} (lease ${waited.lease.id}${fence}); running ${command.join(' ')}`,
  );

  const child = spawn(command[0]!, command.slice(1), {
    stdio: 'inherit',
    env: {
      ...env,
      ...(waited.lease.fence === undefined ? {} : { LEASE_GATE_FENCE: String(waited.lease.fence) }),
      LEASE_GATE_LEASE_ID: waited.lease.id,
    },
  });
  const exited = new Promise<number>((resolve) => {
    child.on('error', (error) => {
      io.err(`lease-gate: could not start ${command[0]}: ${error.message}`);
      resolve(127);
    });
    child.on('close', (code, signal) => resolve(code ?? 128 + signalNumber(signal)));
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED) process.on(signal, forward);

  const stopKeeping = new AbortController();
  let lost: KeeperStatus['lost'];
  const keeping = keepLease({
    client,
    ...request,
    lease: waited.lease,
    clock: systemClock,
    wallNow: Date.now,
    sleep: realSleep,
    signal: stopKeeping.signal,
    maxLifetimeMs: 7 * 24 * 3_600_000,
    onChange: (status) => {
      if (!status.lost || lost) return;
      lost = status.lost;
      const who = lost.holder
        ? `it is now held by ${describeHolder(lost.holder)}`
        : `the plane refused the renewal (${lost.reason})`;
      io.err(
        `lease-gate: lost ${settings.resource} at ${new Date(lost.atMs).toISOString()}: ${who}.${onLost === 'terminate' ? ' Stopping the command.' : ''}`,
      );
      if (onLost === 'terminate') terminate(child.pid);
    },
  });

  const code = await exited;
  for (const signal of FORWARDED) process.off(signal, forward);
  stopKeeping.abort();
  const status = await keeping;
  for (const gap of status.gaps) {
    io.err(
      `lease-gate: the lease lapsed and was granted again (gap of about ${formatDuration(gap.gapMs)}).`,
    );
  }
  if (lost) return code === 0 ? EXIT.refused : code;
  try {
    await client.release(request, { retryUntilMs: systemClock.now() + RELEASE_BUDGET_MS });
    io.err(`lease-gate: released ${settings.resource}.`);
  } catch (error) {
    io.err(
      `lease-gate: could not release ${settings.resource} (${(error as Error).message}); it lapses on its own.`,
    );
  }
  return code;

  function terminate(pid: number | undefined) {
    if (pid === undefined) return;
    child.kill('SIGTERM');
    setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), TERMINATE_GRACE_MS).unref();
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGKILL: 9,
    SIGTERM: 15,
  };
  return (signal && numbers[signal]) || 0;
}
