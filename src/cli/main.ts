import { errorMessage } from '../errors.js';
import { untrusted } from '../lease/escape.js';
import { APP, APP_SMOKE } from './app-help.js';
import { KERNEL } from './flags/kernel.js';
import { KEYGEN, LEDGER_EXPORT, VERIFY } from './flags/ledger.js';
import {
  APPROVE_BREAK_GLASS,
  BREAK_GLASS,
  BREAK_GLASS_CANCEL,
  FREEZE,
  REVOKE,
  UNFREEZE,
} from './flags/operator.js';
import { ACQUIRE, HISTORY, RELEASE, RUN, STATUS } from './flags/plane.js';
import { helpOf, type CommandSpec } from './flags/table.js';
import { EXIT, UsageError, stdio, type Output } from './options.js';
import { HOSTED_HINT, askedHostedPlane } from './plane-url.js';
import { closest } from './suggest.js';
import packageJson from '../../package.json' with { type: 'json' };

type Command = (args: string[], io: Output, env: NodeJS.ProcessEnv) => Promise<number>;

/**
 * Each command's module is loaded when it runs: the keeper (`keep`), which lives as long as
 * the job, then never holds the kernel, PostgreSQL or the ledger in memory, and a command
 * starts without evaluating the others. The bundle puts each in its own chunk. The helps
 * come from the light flag tables (flags/), so --help loads no command.
 */
/** A command as its module has it: one that does no I/O it must wait for returns its code. */
type Loaded = (...args: Parameters<Command>) => number | Promise<number>;

function lazyFrom<M>(load: () => Promise<M>) {
  return (name: keyof M): Command =>
    async (args, io, env) =>
      ((await load())[name] as Loaded)(args, io, env);
}
const leaseCommands = lazyFrom(() => import('./lease-commands.js'));
const freezeCommands = lazyFrom(() => import('./freeze-commands.js'));
const breakGlassCommands = lazyFrom(() => import('./break-glass-commands.js'));
const ledgerCommands = lazyFrom(() => import('./ledger-commands.js'));

/** Each command: how it runs, and the flag tables its help is made of (two forms: two). */
export const COMMANDS: Record<string, { run: Command; specs: readonly CommandSpec[] }> = {
  kernel: { run: lazyFrom(() => import('./kernel-command.js'))('kernel'), specs: [KERNEL] },
  acquire: { run: leaseCommands('acquire'), specs: [ACQUIRE] },
  release: { run: leaseCommands('release'), specs: [RELEASE] },
  run: { run: lazyFrom(() => import('./run-command.js'))('runCommand'), specs: [RUN] },
  keygen: { run: ledgerCommands('keygen'), specs: [KEYGEN] },
  ledger: { run: ledgerCommands('ledger'), specs: [LEDGER_EXPORT] },
  history: { run: lazyFrom(() => import('./history-command.js'))('history'), specs: [HISTORY] },
  verify: { run: ledgerCommands('verify'), specs: [VERIFY] },
  status: { run: leaseCommands('status'), specs: [STATUS] },
  app: { run: lazyFrom(() => import('./app-command.js'))('app'), specs: [APP, APP_SMOKE] },
  revoke: { run: leaseCommands('revoke'), specs: [REVOKE] },
  freeze: { run: freezeCommands('freeze'), specs: [FREEZE] },
  unfreeze: { run: freezeCommands('unfreeze'), specs: [UNFREEZE] },
  'break-glass': {
    run: breakGlassCommands('breakGlass'),
    specs: [BREAK_GLASS, BREAK_GLASS_CANCEL],
  },
  'approve-break-glass': {
    run: breakGlassCommands('approveBreakGlass'),
    specs: [APPROVE_BREAK_GLASS],
  },
};

/** Each command's help, as `lease-gate NAME --help` prints it. */
export const HELPS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(COMMANDS).map(([name, command]) => [name, command.specs.map(helpOf).join('\n')]),
);

/** Used by the action itself; not in the help. */
const INTERNAL: Record<string, Command> = {
  keep: lazyFrom(() => import('./keep-command.js'))('keep'),
};

export const USAGE = `Usage: lease-gate <command> [options]

${Object.values(HELPS).join('\n\n')}

Common: the key comes from LEASE_GATE_KEY (or INTRAMEDIAL_KEY, the hosted plane's name), or an OIDC ID token from --oidc-token-file FILE or
LEASE_GATE_OIDC_TOKEN is sent instead. --auth auto|key|oidc (LEASE_GATE_AUTH; auto: a given token, else the key, else
this CI job's own token if it can get one): on GitHub Actions the runner's token service, on GitLab the variable of the
job's id_tokens (--id-token-var NAME, default LEASE_GATE_ID_TOKEN), on CircleCI CIRCLE_OIDC_TOKEN_V2 or \`circleci run
oidc get\`, on Buildkite \`buildkite-agent oidc request-token\`; --oidc-audience AUD (LEASE_GATE_OIDC_AUDIENCE, default
lease-gate) is the audience asked for. The job then acts as the DID its token vouches for. --api-url defaults to LEASE_GATE_API_URL, then INTRAMEDIAL_API_URL,
else the hosted plane https://api.intramedial.com (a failure then says the hosted plane was asked);
--actor-did to LEASE_GATE_ACTOR_DID or this host and user.
An unreachable plane is said at once on stderr (the URL, where it came from), then retried quietly
within --wait-timeout (10 s with --wait-timeout 0; 30 s for the other commands), a line a minute.
Exit codes: 0 done, 1 refused, timed out, lost or the plane failed, 2 usage,
128+N when stopped by signal N (run: the command's own code, or 128+N for its signal).
lease-gate --version prints the version.`;

/** Runs one command; returns the exit code. Never throws for a user's mistake. */
export async function main(argv: string[], io: Output = stdio, env = process.env): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    io.out(`lease-gate ${packageJson.version}`);
    return EXIT.done;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(USAGE);
    return name ? EXIT.done : EXIT.usage;
  }
  const internal = INTERNAL[name];
  if (internal) return internal(args, io, env);
  const command = COMMANDS[name];
  if (!command) {
    const guess = closest(name, Object.keys(COMMANDS));
    io.err(
      `Unknown command '${untrusted(name, 60)}'.${guess ? ` Did you mean '${guess}'?` : ''} Run 'lease-gate --help' for the list.`,
    );
    return EXIT.usage;
  }
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (own.includes('--help') || own.includes('-h')) {
    io.out(HELPS[name]!);
    return EXIT.done;
  }
  try {
    return await command.run(args, io, env);
  } catch (error) {
    if (error instanceof UsageError) {
      // One line and where the usage is, not the whole help: the error stays on screen.
      io.err(`${endSentence(untrusted(error.message, 1_000))} See 'lease-gate ${name} --help'.`);
      return EXIT.usage;
    }
    io.err(`lease-gate ${name}: ${describeFailure(error)}`);
    if (askedHostedPlane(name, args, env)) io.err(`lease-gate: ${HOSTED_HINT}`);
    return EXIT.refused;
  }
}

/** A usage error ends its sentence before "See …" is put after it. */
export const endSentence = (text: string): string =>
  /[.?!][')"\]]*$/.test(text.trimEnd()) ? text.trimEnd() : `${text.trimEnd()}.`;

/** One line for any failure, never a stack (errorMessage()), escaped for the terminal. */
export function describeFailure(error: unknown): string {
  return untrusted(errorMessage(error), 1_000);
}
