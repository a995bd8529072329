import type { CommandSpec, Flag } from './table.js';

/**
 * The flags of the commands that talk to a plane, and the help of acquire, release, run,
 * status and history. Light on purpose: main() reads every help without loading a command.
 */

/** main() answers `--help` and `-h` before a command parses; parsing them too keeps them known. */
export const HELP_FLAG = {
  type: 'boolean',
  short: 'h',
  default: false,
  hidden: 'main() answers it before the command runs',
} as const satisfies Flag;

/** Said once in the overview's "Common:" part. */
export const common = <F extends Flag>(flag: F) => ({ ...flag, common: true }) as const;

export const RESOURCE = { type: 'string', value: 'R' } as const satisfies Flag;
export const ACTOR_DID = { type: 'string', value: 'D' } as const satisfies Flag;
export const API_URL = { type: 'string', value: 'U' } as const satisfies Flag;
export const WAIT_TIMEOUT = { type: 'string', value: '30m' } as const satisfies Flag;
export const OIDC_TOKEN_FILE = { type: 'string', value: 'FILE' } as const satisfies Flag;
export const JSON_FLAG = { type: 'boolean', default: false } as const satisfies Flag;
/** The credential (cli/ci-auth.ts) and, on a CI job, how its own token is asked for. */
export const AUTH = { type: 'string', value: 'auto|key|oidc' } as const satisfies Flag;
export const OIDC_AUDIENCE = { type: 'string', value: 'AUD' } as const satisfies Flag;
export const ID_TOKEN_VAR = { type: 'string', value: 'NAME' } as const satisfies Flag;

/** The credential's flags, said once in the overview's "Common:" part. */
export const AUTH_FLAGS = {
  'oidc-token-file': common(OIDC_TOKEN_FILE),
  auth: common(AUTH),
  'oidc-audience': common(OIDC_AUDIENCE),
  'id-token-var': common(ID_TOKEN_VAR),
} as const;

/** What every plane command parses that its synopsis need not repeat. */
export const COMMON_FLAGS = {
  'actor-did': common(ACTOR_DID),
  'wait-timeout': common(WAIT_TIMEOUT),
  ...AUTH_FLAGS,
  help: HELP_FLAG,
} as const;

/** The deploy's identity (deploy-flags.ts reads them), for CI systems that are not GitHub Actions. */
export const DEPLOY_FLAGS = {
  repository: { type: 'string', value: 'OWNER/REPO' },
  workflow: { type: 'string', value: 'W' },
  ref: { type: 'string', value: 'REF' },
  commit: { type: 'string', value: 'SHA' },
  'run-number': { type: 'string', value: 'N' },
  'run-attempt': { type: 'string', value: 'N' },
  'run-url': { type: 'string', value: 'URL' },
  queue: { type: 'string', value: 'fifo|newest' },
} as const satisfies Record<string, Flag>;

/** The help's lines for the deploy flags. */
const DEPLOY_HELP = `  What is deployed (recorded in the grant's ledger entry, shown by status): --repository, --workflow,
  --ref, --commit (the full SHA), --run-number, --run-attempt, --run-url (https://). --queue newest
  steps aside when a newer run (higher --run-number) of the same repository, workflow and ref starts
  waiting ("superseded by …" on stderr); it needs those four flags.`;

/** The flags of acquire, and of the commands that name an actor the same way. */
const WAITING_FLAGS = {
  resource: RESOURCE,
  'actor-did': ACTOR_DID,
  'api-url': API_URL,
  'wait-timeout': WAIT_TIMEOUT,
} as const;

export const ACQUIRE = {
  usage: 'lease-gate acquire',
  flags: {
    ...WAITING_FLAGS,
    json: JSON_FLAG,
    ...DEPLOY_FLAGS,
    ...AUTH_FLAGS,
    help: HELP_FLAG,
  },
  about: `  Take the lease, waiting on the plane's back-off while another holds it. Nothing renews a lease
  taken with acquire: it lapses at the expiry the plane answered (30 s on a default kernel), said on
  stderr. To hold it while a command runs, use run. --wait-timeout 0 asks once.
${DEPLOY_HELP} Superseded, acquire exits 1: nothing is held.`,
} as const satisfies CommandSpec;

export const RELEASE = {
  usage: 'lease-gate release',
  flags: {
    resource: RESOURCE,
    'actor-did': ACTOR_DID,
    'api-url': API_URL,
    json: JSON_FLAG,
    'wait-timeout': common(WAIT_TIMEOUT),
    ...AUTH_FLAGS,
    help: HELP_FLAG,
  },
  about: '  Give back the lease this actor holds.',
} as const satisfies CommandSpec;

export const RUN = {
  usage: 'lease-gate run',
  flags: {
    ...WAITING_FLAGS,
    'on-lost': { type: 'string', default: 'terminate', value: 'terminate|warn' },
    ...DEPLOY_FLAGS,
    json: {
      ...JSON_FLAG,
      hidden: "parsed as every plane command's: run prints the command's output",
    },
    ...AUTH_FLAGS,
    help: HELP_FLAG,
  },
  after: '-- <command> [args...]',
  about: `  Hold the lease while the command runs (renewing it), release it after, exit with the command's code.
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
} as const satisfies CommandSpec;

export const STATUS = {
  usage: 'lease-gate status',
  flags: { resource: RESOURCE, 'api-url': API_URL, json: JSON_FLAG, ...COMMON_FLAGS },
  about: `  Show who holds the resource, without taking it, and its queue as the console shows it: each
  waiter's place, how long it has waited and, once a hold has ended, about how long it has left
  to wait at recent hold times (a kernel's; --json: "queue", null from a plane that lists none).`,
} as const satisfies CommandSpec;

export const HISTORY = {
  usage: 'lease-gate history',
  flags: {
    resource: RESOURCE,
    since: { type: 'string', value: '4h|7d|TIME' },
    'api-url': API_URL,
    json: JSON_FLAG,
    ...COMMON_FLAGS,
  },
  about: `  What the kernel's ledger says happened, in the console's words, oldest first: each hold (holder,
  fence, how long, how it ended: released, lapsed, revoked by whom and why), each freeze, unfreeze
  and break-glass. --resource: only R (default: every resource). --since: only what ran or happened
  since a duration back from now or an ISO 8601 time with a zone.`,
} as const satisfies CommandSpec;
