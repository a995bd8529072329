import { parseArgs } from 'node:util';
import { untrusted } from '../lease/escape.js';
import { formatDuration } from '../gate/duration.js';
import type { Loss } from '../gate/keep.js';
import { LIMITS, type Held } from '../lease/session.js';
import { ASKED_ONCE, describeLease, describeLoss, describeWaitState } from '../lease/texts.js';
import { realSleep } from '../plane/time.js';
import { EXIT, UsageError, holderSettings, parse, signalExitCode, type Output } from './options.js';
import { cliSession, waitForLease } from './session.js';
import { deployFor } from './deploy-flags.js';
import { RUN } from './flags/plane.js';
import { optionsOf } from './flags/table.js';
import { contain, type Containment } from './containment.js';

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'] as const;

/**
 * `lease-gate run -- <command>`: hold the lease for exactly as long as the
 * command runs, renewing it in-process, and exit with the command's code. The
 * command runs in its own process group, and on Linux in a cgroup of its own
 * (or, without one, its tree followed in /proc: containment.ts), which owns
 * everything it starts: signals go to the group, a loss stops all of it
 * (SIGTERM, then SIGKILL after the grace); on a kernel a revoke is heard at
 * once through a watch, and the next holder is granted only after all of it is
 * gone and the lease given back.
 */
export async function runCommand(
  args: string[],
  io: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const split = args.indexOf('--');
  const command = split < 0 ? [] : args.slice(split + 1);
  const { values } = parse(split < 0 ? withoutCommand(args) : args.slice(0, split), RUN_OPTIONS);
  if (command.length === 0) throw new UsageError(missingCommand(args));
  const onLost = values['on-lost'];
  if (onLost !== 'terminate' && onLost !== 'warn') {
    throw new UsageError(`Invalid --on-lost '${onLost}'. Expected 'terminate' or 'warn'.`);
  }
  const cgroup = cgroupFromEnv(env);
  const settings = await holderSettings(values, env);
  const session = cliSession({ ...settings, ...deployFor(values, settings, env) }, io, env);
  try {
    const { result: waited, stoppedBy } = await waitForLease(session, settings, io, {
      signals: FORWARDED,
    });
    if (waited.outcome === 'superseded') {
      // As the action: a newer run of the lane deploys instead; nothing ran, nothing failed.
      io.err(`lease-gate: superseded by ${untrusted(waited.by, 2048)}; the command did not run.`);
      return EXIT.done;
    }
    if (waited.outcome !== 'granted') {
      io.err(
        waited.outcome === 'timeout' && settings.waitTimeoutMs === 0
          ? `lease-gate: ${settings.resource} is ${describeWaitState(waited)}; ${ASKED_ONCE}. The command did not run.`
          : waited.outcome === 'timeout'
            ? `lease-gate: timed out after ${formatDuration(waited.waitedMs)}; ${settings.resource} is ${describeWaitState(waited)}. The command did not run.`
            : `lease-gate: stopped${stoppedBy ? ` by ${stoppedBy}` : ''} while waiting; the command did not run.`,
      );
      // 128+N for signal N, as --help promises.
      return stoppedBy ? signalExitCode(stoppedBy) : EXIT.refused;
    }
    const { held } = waited;
    io.err(
      `lease-gate: holding ${settings.resource} (${describeLease(held.lease)}); running ${command.join(' ')}`,
    );
    return await runHolding(command, held, {
      io,
      env,
      onLost,
      resource: settings.resource,
      cgroup,
    });
  } finally {
    await session.close();
  }
}

const RUN_OPTIONS = optionsOf(RUN.flags);

/** `LEASE_GATE_RUN_CGROUP=0` keeps the command out of a cgroup (its tree is followed in /proc). */
function cgroupFromEnv(env: NodeJS.ProcessEnv): boolean {
  const value = env.LEASE_GATE_RUN_CGROUP;
  if (value === undefined || value === '' || value === '1') return true;
  if (value === '0') return false;
  throw new UsageError(
    `Invalid LEASE_GATE_RUN_CGROUP '${untrusted(value, 40)}'. Expected 0 (no cgroup) or 1 (a cgroup where Linux allows one, the default).`,
  );
}

/** The flags before a command given without `--`, so the usage error can point at `--`. */
function withoutCommand(args: string[]): string[] {
  const { tokens } = parseArgs({ args, options: RUN_OPTIONS, strict: false, tokens: true });
  const first = tokens.find((t) => t.kind === 'positional');
  return first ? args.slice(0, first.index) : args;
}

/** `run echo hi` means `run -- echo hi`: say so, with the user's own words. */
function missingCommand(args: string[]): string {
  const flags = withoutCommand(args);
  const rest = args.slice(flags.length);
  if (rest.length === 0 || args.includes('--'))
    return 'run needs a command after --, as in: lease-gate run -- ./deploy.sh';
  const shown = (words: string[]) => untrusted(words.join(' '), 200);
  return `run takes its command after --: lease-gate run ${flags.length ? `${shown(flags)} ` : ''}-- ${shown(rest)}`;
}

async function runHolding(
  command: string[],
  held: Held,
  o: {
    io: Output;
    env: NodeJS.ProcessEnv;
    onLost: 'terminate' | 'warn';
    resource: string;
    cgroup: boolean;
  },
): Promise<number> {
  const contained = contain({ cgroup: o.cgroup });
  try {
    return await runContained(command, held, contained, o);
  } finally {
    contained.dispose();
  }
}

async function runContained(
  command: string[],
  held: Held,
  contained: Containment,
  o: { io: Output; env: NodeJS.ProcessEnv; onLost: 'terminate' | 'warn'; resource: string },
): Promise<number> {
  const { lease } = held;
  const child = contained.spawn(command[0]!, command.slice(1), {
    stdio: 'inherit',
    env: {
      ...o.env,
      ...(lease.fence === undefined ? {} : { LEASE_GATE_FENCE: String(lease.fence) }),
      LEASE_GATE_LEASE_ID: lease.id,
    },
  });
  const exited = new Promise<number>((resolve) => {
    child.on('error', (error) => {
      o.io.err(`lease-gate: could not start ${command[0]}: ${error.message}`);
      resolve(127);
    });
    child.on('exit', (code, signal) => resolve(code ?? signalExitCode(signal)));
  });
  const forward = (signal: NodeJS.Signals) => contained.signalGroup(signal);
  for (const signal of FORWARDED) process.on(signal, forward);

  let stopping: Promise<void> | undefined;
  const stop = () => contained.stop(LIMITS.terminateGraceMs, realSleep);
  const stopKeeping = new AbortController();
  let lost: Loss | undefined;
  let noted = false;
  const keeping = held.keep({
    signal: stopKeeping.signal,
    onChange: (status) => {
      if (status.note && !noted) {
        noted = true;
        o.io.err(`lease-gate: ${status.note}`);
      }
      if (!status.lost || lost) return;
      lost = status.lost;
      o.io.err(
        `lease-gate: ${describeLoss(o.resource, lost)}${o.onLost === 'terminate' ? ' Stopping the command.' : ''}`,
      );
      if (o.onLost === 'terminate') stopping ??= stop();
    },
  });
  const code = await exited;
  for (const signal of FORWARDED) process.off(signal, forward);
  // Whatever the command left running (a setsid() child too) goes before the lease does.
  await stopping;
  if (contained.alive()) await stop();
  stopKeeping.abort();
  await keeping;
  const outcome = await held.release();
  if (outcome.kind === 'released') o.io.err(`lease-gate: released ${o.resource}.`);
  else if (outcome.kind === 'failed')
    o.io.err(
      `lease-gate: could not release ${o.resource} (${outcome.message}); it lapses on its own.`,
    );
  if (lost) return code === 0 ? EXIT.refused : code;
  return code;
}
