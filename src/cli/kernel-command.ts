import { hostname } from 'node:os';
import { StartRefusedError } from '../kernel/store/store-error.js';
import { KERNEL_FLAGS } from './flags/kernel.js';
import { optionsOf, type ValuesOf } from './flags/table.js';
import { kernelSettings } from './kernel-settings.js';
import { startKernel } from './kernel-start.js';
import { migrateCommand } from './kernel-postgres.js';
import { logFormatOf } from './log-format-flag.js';
import { loggedOutput, refusedToStart, urlPassword, type LogSettings } from './log-output.js';
import { EXIT, parse, type Output } from './options.js';

/** `lease-gate kernel`: the local plane on loopback, until SIGINT or SIGTERM. */
export async function kernel(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  if (args[0] === 'migrate') return migrateCommand(args.slice(1), io, env);
  return serveKernel(args, io, env);
}

/**
 * Parse → check (kernelSettings, no I/O) → start (every file read, then listen), every
 * line through one logger; with --log-format json a refusal to start is a JSON line too.
 */
async function serveKernel(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, optionsOf(KERNEL_FLAGS));
  const log = logSettings(values, env);
  const logged = loggedOutput(io, log);
  try {
    return await startKernel(kernelSettings(values, env), logged, env);
  } catch (error) {
    // Another kernel on this state, or a log that is not the history signed: one line, exit 2.
    if (error instanceof StartRefusedError) {
      logged.err(`lease-gate kernel: ${error.message}`);
      return EXIT.usage;
    }
    return refusedToStart(error, log, logged, 'kernel');
  }
}

/**
 * The form, and what no line may hold: the keys and the database's password, as given
 * (before they are checked: a refusal is logged too). PostgreSQL replicas name themselves.
 */
function logSettings(values: ValuesOf<typeof KERNEL_FLAGS>, env: NodeJS.ProcessEnv): LogSettings {
  const store = values.store?.startsWith('postgres') ? values.store : undefined;
  const database = store === 'postgres' ? env.DATABASE_URL : store;
  return {
    format: logFormatOf(values['log-format'], env),
    secrets: [
      env.LEASE_GATE_KERNEL_KEY,
      env.LEASE_GATE_ADMIN_KEY,
      env.LEASE_GATE_APPROVER_KEY,
      env.LEASE_GATE_METRICS_KEY,
      urlPassword(database),
    ],
    ...(store && { base: { replica: `${hostname()}:${process.pid}` } }),
  };
}
