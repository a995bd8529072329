import { describeFailure, main } from './main.js';
import { stdio } from './options.js';

/** The CLI process: one line and exit 1 for anything unforeseen, never a stack trace. */
export async function runCli(argv = process.argv.slice(2)): Promise<void> {
  const fail = (error: unknown) => {
    stdio.err(`lease-gate: ${describeFailure(error)}`);
    process.exit(1);
  };
  process.on('uncaughtException', fail).on('unhandledRejection', fail);
  try {
    process.exitCode = await main(argv);
  } catch (error) {
    fail(error);
  }
}
