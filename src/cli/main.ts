import { PlaneError } from '../plane/errors.js';
import { LeaseRefusedError } from '../gate/wait.js';
import { StoreError } from '../kernel/store.js';
import { LedgerError } from '../ledger/ledger.js';
import { keep } from './keep-command.js';
import { kernel } from './kernel-command.js';
import { acquire, release, revoke, status } from './lease-commands.js';
import { runCommand } from './run-command.js';
import { keygen, ledger, verify } from './ledger-commands.js';
import { EXIT, UsageError, stdio, type Output } from './options.js';

type Command = (args: string[], io: Output, env: NodeJS.ProcessEnv) => Promise<number>;

const COMMANDS: Record<string, { run: Command; help: string }> = {
  kernel: {
    run: kernel,
    help: `lease-gate kernel [--host 127.0.0.1] [--port 8787] [--ttl-ms 30000] [--state FILE] [--quiet]
  Serve the local plane. Prints "lease-gate kernel listening on http://HOST:PORT" first.
  LEASE_GATE_KERNEL_KEY: require this Bearer key (needed to listen beyond loopback).
  LEASE_GATE_ADMIN_KEY: the key that may revoke.
  --store postgres[://…] [--schema public] [--pool-size 10] --signing-key FILE: any number of replicas
  on one PostgreSQL database (--store postgres reads DATABASE_URL). 'kernel migrate --store …' only
  brings the schema up to date.`,
  },
  acquire: {
    run: acquire,
    help: `lease-gate acquire [--resource R] [--actor-did D] [--api-url U] [--wait-timeout 30m] [--json]
  Take the lease, waiting on the plane's back-off while another holds it.`,
  },
  release: {
    run: release,
    help: `lease-gate release [--resource R] [--actor-did D] [--api-url U] [--json]
  Give back the lease this actor holds.`,
  },
  run: {
    run: runCommand,
    help: `lease-gate run [--resource R] [--actor-did D] [--api-url U] [--wait-timeout 30m] [--on-lost terminate|warn] -- <command> [args...]
  Hold the lease while the command runs (renewing it), release it after, exit with the command's code.
  The command sees LEASE_GATE_LEASE_ID and LEASE_GATE_FENCE. Signals are forwarded to it. If the lease is
  lost, 'terminate' stops the command and 'warn' lets it finish; either way the exit code is non-zero.`,
  },
  keygen: {
    run: keygen,
    help: `lease-gate keygen --out DIR
  Write an Ed25519 ledger signing key: DIR/ledger.key (PKCS#8 PEM, mode 0600) and DIR/ledger.pub (SPKI PEM).`,
  },
  ledger: {
    run: ledger,
    help: `lease-gate ledger export [--url http://127.0.0.1:8787] [--out FILE]
  Fetch the kernel's ledger bundle (and its public key, to FILE.pub).`,
  },
  verify: {
    run: verify,
    help: `lease-gate verify FILE --public-key KEY [--previous CHECKPOINT] [--allow-partial] [--json]
  Check a ledger bundle offline: signature, origin, every inclusion proof, order, timestamps,
  completeness, and (with --previous) that an older checkpoint's entries were not rewritten.`,
  },
  status: {
    run: status,
    help: `lease-gate status [--resource R] [--api-url U] [--json]
  Show who holds the resource, without taking it.`,
  },
  revoke: {
    run: revoke,
    help: `lease-gate revoke [--resource R] [--reason TEXT] [--api-url U] [--json]
  End a lease at once (needs LEASE_GATE_ADMIN_KEY).`,
  },
};

/** Used by the action itself; not in the help. */
const INTERNAL: Record<string, Command> = { keep };

const USAGE = `Usage: lease-gate <command> [options]

${Object.values(COMMANDS)
  .map((c) => c.help)
  .join('\n\n')}

Common: the key comes from INTRAMEDIAL_KEY; --api-url defaults to INTRAMEDIAL_API_URL or
https://api.intramedial.com; --actor-did to LEASE_GATE_ACTOR_DID or this host and user.
Exit codes: 0 done, 1 refused, timed out or the plane failed, 2 usage.`;

/** Runs one command; returns the exit code. Never throws for a user's mistake. */
export async function main(argv: string[], io: Output = stdio, env = process.env): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(USAGE);
    return name ? EXIT.done : EXIT.usage;
  }
  const internal = INTERNAL[name];
  if (internal) return internal(args, io, env);
  const command = COMMANDS[name];
  if (!command) {
    io.err(`Unknown command '${name}'. Run 'lease-gate --help' for the list.`);
    return EXIT.usage;
  }
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (own.includes('--help') || own.includes('-h')) {
    io.out(command.help);
    return EXIT.done;
  }
  try {
    return await command.run(args, io, env);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${command.help}`);
      return EXIT.usage;
    }
    if (
      error instanceof PlaneError ||
      error instanceof LeaseRefusedError ||
      error instanceof StoreError ||
      error instanceof LedgerError
    ) {
      io.err(error.message);
      return EXIT.refused;
    }
    throw error;
  }
}
