import { errorMessage } from '../errors.js';
import { untrusted } from '../lease/escape.js';
import { APP_HELP } from './app-help.js';
import { DEPLOY_HELP, DEPLOY_USAGE } from './deploy-flags.js';
import { EXIT, UsageError, stdio, type Output } from './options.js';
import { HOSTED_HINT, askedHostedPlane } from './plane-url.js';
import { closest } from './suggest.js';
import packageJson from '../../package.json' with { type: 'json' };

type Command = (args: string[], io: Output, env: NodeJS.ProcessEnv) => Promise<number>;

/**
 * Each command's module is loaded when it runs: the keeper (`keep`), which lives as long as
 * the job, then never holds the kernel, PostgreSQL or the ledger in memory, and a command
 * starts without evaluating the others. The bundle puts each in its own chunk.
 */
const lazy =
  (load: () => Promise<Command>): Command =>
  async (args, io, env) =>
    (await load())(args, io, env);
const kernel = lazy(async () => (await import('./kernel-command.js')).kernel);
const acquire = lazy(async () => (await import('./lease-commands.js')).acquire);
const release = lazy(async () => (await import('./lease-commands.js')).release);
const status = lazy(async () => (await import('./lease-commands.js')).status);
const revoke = lazy(async () => (await import('./lease-commands.js')).revoke);
const freeze = lazy(async () => (await import('./freeze-commands.js')).freeze);
const unfreeze = lazy(async () => (await import('./freeze-commands.js')).unfreeze);
const breakGlass = lazy(async () => (await import('./break-glass-commands.js')).breakGlass);
const approveBreakGlass = lazy(
  async () => (await import('./break-glass-commands.js')).approveBreakGlass,
);
const runCommand = lazy(async () => (await import('./run-command.js')).runCommand);
const keygen = lazy(async () => (await import('./ledger-commands.js')).keygen);
const ledger = lazy(async () => (await import('./ledger-commands.js')).ledger);
const verify = lazy(async () => (await import('./ledger-commands.js')).verify);
const history = lazy(async () => (await import('./history-command.js')).history);
const keep = lazy(async () => (await import('./keep-command.js')).keep);
const app = lazy(async () => (await import('./app-command.js')).app);

const COMMANDS: Record<string, { run: Command; help: string }> = {
  kernel: {
    run: kernel,
    help: `lease-gate kernel [--host 127.0.0.1] [--port 8787] [--ttl-ms 30000] [--lock-delay-ms N] [--data-prefix PATH] [--quiet]
  Serve the local plane. Prints "lease-gate kernel listening on http://HOST:PORT" first.
  LEASE_GATE_KERNEL_KEY: require this Bearer key (needed to listen beyond loopback, 16 characters at least there).
  LEASE_GATE_ADMIN_KEY: the key that may revoke, freeze and break glass (never the kernel key).
  LEASE_GATE_APPROVER_KEY: a second operator's key; each break-glass then waits for its approval.
  --approver-oidc PATTERN (repeatable, needs --oidc-audience): an OIDC identity (a glob over the token's
  sub, e.g. repo:acme/ops:environment:break-glass) may approve a break-glass too, as oidc:SUB.
  --lock-delay-ms: after a revoke, how long others wait at most for the holder to give back
  (default a third of --ttl-ms plus 2 s: 12000 for 30 s leases; 0: none).
  --oidc-audience AUD --policy FILE [--oidc-issuer URL] [--oidc-did-host HOST]: accept OIDC ID tokens
  (GitHub Actions' by default); each acts only as its own run's DIDs, leasing what the policy allows.
  --keys FILE: scoped keys, each acting only as its DIDs and leasing only its resources.
  --public-url URL (repeatable): a URL clients reach it by beyond loopback and its listen address, such as
  the https:// one of a TLS proxy; other Host names are answered 421, other origins may not change leases.
  --store postgres[://…] [--schema public] [--pool-size 10] --signing-key FILE: any number of replicas
  on one PostgreSQL database (--store postgres reads DATABASE_URL). 'kernel migrate --store …' only
  brings the schema up to date.
  --windows FILE: recurring freezes (JSON: name, schedule as cron, duration, timeZone, resources, reason).
  --notify URL (repeatable) --notify-secret-file FILE: POST each grant, release, lapse, revoke, freeze
  and unfreeze as signed JSON (X-Hub-Signature-256), retried for up to 10 min, in order per resource.
  --notify-file FILE: the same as a config entry, {"notify": {"urls": [...], "secretFile": "FILE"}}.
  --health-check RESOURCE=URL (repeatable) [--health-interval-ms 10000] [--health-freeze-held]: hold
  new grants of RESOURCE while URL (https:, or http: on loopback) answers other than 2xx or not in 5 s;
  with --health-freeze-held a failure while it is held freezes it until an operator unfreezes it.
  --promote FROM->TO (repeatable; 'staging->production' means lock:deploy/staging -> lock:deploy/production):
  TO is granted only to a commit (deploy.repository, deploy.commit) the ledger shows completed a hold
  on FROM (released, not outdated); else refused 'not_promoted', naming the step. Break-glass overrides.
  --github-token-file FILE [--github-api-url https://api.github.com]: a descendant passes too: GitHub's
  compare is asked whether a commit that completed FROM contains it (the grant names it, promotedVia).
  The file is read at each question (a rotated token needs no restart); GitHub not answering refuses.`,
  },
  acquire: {
    run: acquire,
    help: `lease-gate acquire [--resource R] [--actor-did D] [--api-url U] [--wait-timeout 30m] [--json] ${DEPLOY_USAGE}
  Take the lease, waiting on the plane's back-off while another holds it. Nothing renews a lease
  taken with acquire: it lapses at the expiry the plane answered (30 s on a default kernel), said on
  stderr. To hold it while a command runs, use run. --wait-timeout 0 asks once.
${DEPLOY_HELP} Superseded, acquire exits 1: nothing is held.`,
  },
  release: {
    run: release,
    help: `lease-gate release [--resource R] [--actor-did D] [--api-url U] [--json]
  Give back the lease this actor holds.`,
  },
  run: {
    run: runCommand,
    help: `lease-gate run [--resource R] [--actor-did D] [--api-url U] [--wait-timeout 30m] [--on-lost terminate|warn] ${DEPLOY_USAGE} -- <command> [args...]
  Hold the lease while the command runs (renewing it), release it after, exit with the command's code.
  The command sees LEASE_GATE_LEASE_ID and LEASE_GATE_FENCE. Signals are forwarded to it. If the lease is
  lost, 'terminate' stops the command and 'warn' lets it finish; either way the exit code is non-zero.
  The command runs in its own process group: signals are forwarded to the group. On Linux it also runs
  in a cgroup of its own where the cgroup2 mount allows one (root), else its descendants are followed
  in /proc (LEASE_GATE_RUN_CGROUP=0 skips the cgroup). On loss (or when the command exits leaving
  processes) all of it, setsid() children too, gets SIGTERM, then SIGKILL 10 s later. On a kernel it
  keeps a watch on its lease, so a revoke stops the command at once; the kernel grants the resource
  to the next agent only once run gave it back (after all of it is gone) or the kernel's lock-delay
  passed. Against a plane without the watch, a loss is noticed at the next renewal (within ~10 s).
${DEPLOY_HELP} Superseded, run exits 0 without running the command (as the action succeeds).`,
  },
  keygen: {
    run: keygen,
    help: `lease-gate keygen --out DIR
  Write an Ed25519 ledger signing key: DIR/ledger.key (PKCS#8 PEM, mode 0600) and DIR/ledger.pub (SPKI PEM).`,
  },
  ledger: {
    run: ledger,
    help: `lease-gate ledger export [--api-url U] [--out FILE]
  Fetch the kernel's ledger bundle (and its public key, to FILE.pub). --url U is the older name of --api-url.`,
  },
  history: {
    run: history,
    help: `lease-gate history [--resource R] [--since 4h|7d|TIME] [--api-url U] [--json]
  What the kernel's ledger says happened, in the console's words, oldest first: each hold (holder,
  fence, how long, how it ended: released, lapsed, revoked by whom and why), each freeze, unfreeze
  and break-glass. --resource: only R (default: every resource). --since: only what ran or happened
  since a duration back from now or an ISO 8601 time with a zone.`,
  },
  verify: {
    run: verify,
    help: `lease-gate verify FILE --public-key KEY [--previous CHECKPOINT] [--allow-partial] [--promote FROM->TO] [--json]
  Check a ledger bundle offline: signature, origin, every inclusion proof, order, timestamps,
  completeness, and (with --previous) that an older checkpoint's entries were not rewritten; with
  --promote (as the kernel's), that every grant of TO names a commit that completed FROM before it.`,
  },
  status: {
    run: status,
    help: `lease-gate status [--resource R] [--api-url U] [--json]
  Show who holds the resource, without taking it, and its queue as the console shows it: each
  waiter's place, how long it has waited and, once a hold has ended, about how long it has left
  to wait at recent hold times (a kernel's; --json: "queue", null from a plane that lists none).`,
  },
  app: {
    run: app,
    help: APP_HELP,
  },
  revoke: {
    run: revoke,
    help: `lease-gate revoke [--resource R] [--reason TEXT] [--by NAME] [--api-url U] [--json]
  End a lease now (needs LEASE_GATE_ADMIN_KEY). Its holder's watch hears it at once; the next agent is
  granted once the holder gives back or the lock-delay passes. --by NAME: who the ledger names as
  having revoked it (operator:NAME).`,
  },
  freeze: {
    run: freeze,
    help: `lease-gate freeze [--resource R] --reason TEXT [--until TIME | --for DURATION] [--by NAME] [--api-url U] [--json]
  Grant the resource to nobody new until TIME (ISO 8601 with a zone), for DURATION (90m, 4h, 3d) or until
  unfrozen (needs LEASE_GATE_ADMIN_KEY). The holder keeps it (revoke it too to stop it); waiters keep
  their place and are told "frozen until … by an operator: TEXT". --by NAME: who the ledger names
  (operator:NAME; letters, digits, . _ @ -, up to 64), else operator:admin-key.`,
  },
  unfreeze: {
    run: unfreeze,
    help: `lease-gate unfreeze [--resource R] [--by NAME] [--api-url U] [--json]
  End a freeze (needs LEASE_GATE_ADMIN_KEY); the next in line is granted it. --by NAME as for freeze.`,
  },
  'break-glass': {
    run: breakGlass,
    help: `lease-gate break-glass [--resource R] (--agent DID | --run OWNER/REPO/RUN_ID) --reason TEXT [--for DURATION] [--by NAME] [--api-url U] [--json]
  Let one job (its DID, as the console's queue lists it; or any job of a GitHub run, any attempt, as a
  refused job's log names it: the hotfix path) be granted the resource once, past a freeze, the promotion order,
  a window, a health check's hold and the queue, for DURATION (default 15m, at most 1h; needs
  LEASE_GATE_ADMIN_KEY). Never past a holder or a revoke. Recorded in the ledger with TEXT and --by.
  With a kernel started with LEASE_GATE_APPROVER_KEY or --approver-oidc it waits for approve-break-glass.
lease-gate break-glass --cancel [--resource R] [--agent DID | --run OWNER/REPO/RUN_ID] [--by NAME] [--api-url U] [--json]
  Withdraw the unused break-glass (only --agent's or --run's, when given): a signed ledger entry, so a restart
  does not bring it back. A new break-glass withdraws the last the same way.`,
  },
  'approve-break-glass': {
    run: approveBreakGlass,
    help: `lease-gate approve-break-glass [--resource R] (--agent DID | --run OWNER/REPO/RUN_ID) (--by NAME | --oidc-token-file FILE) [--api-url U] [--json]
  The second operator's approval of a break-glass: with LEASE_GATE_APPROVER_KEY and --by NAME (NAME must
  not be the operator who opened it), or as an OIDC identity the kernel's --approver-oidc allows, its ID
  token read from FILE (then the ledger names it oidc:SUB; not the job's own run). Recorded as approvedBy.`,
  },
};

/** Used by the action itself; not in the help. */
const INTERNAL: Record<string, Command> = { keep };

const USAGE = `Usage: lease-gate <command> [options]

${Object.values(COMMANDS)
  .map((c) => c.help)
  .join('\n\n')}

Common: the key comes from LEASE_GATE_KEY (or INTRAMEDIAL_KEY, the hosted plane's name), or an OIDC ID token from --oidc-token-file FILE or
LEASE_GATE_OIDC_TOKEN is sent instead; --api-url defaults to LEASE_GATE_API_URL, then INTRAMEDIAL_API_URL,
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
    io.out(command.help);
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
