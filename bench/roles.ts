import { changes, cycles } from './cycles.js';
import { load } from './loadgen.js';
import { announce, echoHandler, listen, lockHandler } from './servers.js';

/** What a process started as `index.js role <name> …` does instead of the bench. */
export async function runRole([role, ...args]: string[]): Promise<void> {
  const number = (i: number) => Number(args[i]);
  switch (role) {
    case 'echo':
      return announce(await listen(echoHandler));
    case 'lock':
      return announce(await listen(lockHandler(number(0), args[1] === 'fifo')));
    case 'load': {
      const result = await load({
        url: args[0]!,
        connections: number(1),
        seconds: number(2),
        preload: number(3),
        preloadLimitSeconds: number(4),
        bearer: args[5] || undefined,
        didPrefix: args[6] || undefined,
      });
      process.stdout.write(JSON.stringify(result));
      return;
    }
    case 'cycles':
      process.stdout.write(
        JSON.stringify(await cycles(JSON.parse(args[0]!) as Parameters<typeof cycles>[0])),
      );
      return;
    case 'changes':
      process.stdout.write(
        JSON.stringify(await changes(args[0]!, number(1), number(2), number(3))),
      );
      return;
    default:
      throw new Error(`unknown bench role ${role}`);
  }
}
