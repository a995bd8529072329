import { StartRefusedError } from '../kernel/store/store-error.js';
import { KERNEL_FLAGS } from './flags/kernel.js';
import { optionsOf } from './flags/table.js';
import { kernelSettings } from './kernel-settings.js';
import { startKernel } from './kernel-start.js';
import { migrateCommand } from './kernel-postgres.js';
import { EXIT, parse, type Output } from './options.js';

/** `lease-gate kernel`: the local plane on loopback, until SIGINT or SIGTERM. */
export async function kernel(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  if (args[0] === 'migrate') return migrateCommand(args.slice(1), io, env);
  try {
    return await serveKernel(args, io, env);
  } catch (error) {
    // Another kernel on this state, or a log that is not the history signed: one line, exit 2.
    if (!(error instanceof StartRefusedError)) throw error;
    io.err(`lease-gate kernel: ${error.message}`);
    return EXIT.usage;
  }
}

/** Parse → check (kernelSettings, no I/O) → start (every file read, then listen). */
async function serveKernel(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, optionsOf(KERNEL_FLAGS));
  return startKernel(kernelSettings(values, env), io, env);
}
