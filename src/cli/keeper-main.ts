import { errorMessage } from '../errors.js';
import { untrusted } from '../lease/escape.js';
import { keep } from './keep-command.js';
import { EXIT, UsageError, stdio } from './options.js';

/**
 * The keeper process (src/bin/keeper.ts): `lease-gate keep`'s arguments, its exit codes and
 * its one-line failures, without the rest of the CLI in memory.
 */
export async function runKeeper(argv: string[]): Promise<void> {
  const fail = (error: unknown) => {
    stdio.err(`lease-gate keep: ${untrusted(errorMessage(error), 1_000)}`);
    process.exit(EXIT.refused);
  };
  process.on('uncaughtException', fail).on('unhandledRejection', fail);
  try {
    process.exitCode = await keep(argv, stdio, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) return fail(error);
    stdio.err(untrusted(error.message, 1_000));
    process.exitCode = EXIT.usage;
  }
}
