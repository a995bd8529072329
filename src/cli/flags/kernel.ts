import { HELP_FLAG } from './plane.js';
import type { CommandSpec, Flag } from './table.js';

/**
 * `lease-gate kernel`'s flags, one row each: its parser options and its help both come from
 * here, and kernelSettings() (kernel-settings.ts) reads and checks what they parse to.
 */

/** Where the kernel keeps its state: also `kernel migrate`'s flags. */
export const STORE_FLAGS = {
  store: {
    type: 'string',
    value: 'postgres[://…]',
    with: ['schema', 'pool-size', 'signing-key'],
    help: `any number of replicas
  on one PostgreSQL database (--store postgres reads DATABASE_URL). 'kernel migrate --store …' only
  brings the schema up to date.`,
    synopsis: false,
  },
  schema: { type: 'string', value: 'public', synopsis: false },
  'pool-size': { type: 'string', value: '10', synopsis: false },
} as const satisfies Record<string, Flag>;

/** Who may call it: OIDC tokens under a policy, scoped keys (see docs/kernel.md). */
const AUTH_FLAGS = {
  'oidc-audience': {
    type: 'string',
    value: 'AUD',
    with: ['policy', 'oidc-issuer', 'oidc-did-host'],
    help: `accept OIDC ID tokens
  (GitHub Actions' by default; --oidc-issuer [KIND=]URL, repeatable, names others: gitlab=URL,
  circleci=URL); each acts only as its own job's DIDs, leasing what the policy allows.`,
    synopsis: false,
  },
  policy: { type: 'string', value: 'FILE', required: true, synopsis: false },
  'oidc-issuer': { type: 'string', multiple: true, value: '[KIND=]URL', synopsis: false },
  'oidc-did-host': { type: 'string', value: 'HOST', synopsis: false },
  'oidc-issuers': {
    type: 'string',
    value: 'FILE',
    with: ['policy'],
    help: `several OIDC issuers (JSON: name, kind,
  url, audience, organization, repositories; docs/ci-issuers.md), instead of --oidc-issuer; each
  policy rule names its issuer.`,
    synopsis: false,
  },
  keys: {
    type: 'string',
    value: 'FILE',
    help: 'scoped keys, each acting only as its DIDs and leasing only its resources.',
    synopsis: false,
  },
} as const satisfies Record<string, Flag>;

/** What it tells, and what holds grants back: webhooks, health checks, the promotion order. */
const GATE_FLAGS = {
  windows: {
    type: 'string',
    value: 'FILE',
    help: 'recurring freezes (JSON: name, schedule as cron, duration, timeZone, resources, reason).',
    synopsis: false,
  },
  notify: {
    type: 'string',
    multiple: true,
    value: 'URL',
    note: 'repeatable',
    with: ['notify-secret-file'],
    help: `POST each grant, release, lapse, revoke, freeze
  and unfreeze as signed JSON (X-Hub-Signature-256), retried for up to 10 min, in order per resource.`,
    synopsis: false,
  },
  'notify-secret-file': { type: 'string', value: 'FILE', required: true, synopsis: false },
  'notify-file': {
    type: 'string',
    value: 'FILE',
    help: 'the same as a config entry, {"notify": {"urls": [...], "secretFile": "FILE"}}.',
    synopsis: false,
  },
  'health-check': {
    type: 'string',
    multiple: true,
    default: [],
    value: 'RESOURCE=URL',
    note: 'repeatable',
    with: ['health-interval-ms', 'health-freeze-held'],
    help: `hold
  new grants of RESOURCE while URL (https:, or http: on loopback) answers other than 2xx or not in 5 s;
  with --health-freeze-held a failure while it is held freezes it until an operator unfreezes it.`,
    synopsis: false,
  },
  'health-interval-ms': { type: 'string', default: '10000', value: '10000', synopsis: false },
  'health-freeze-held': { type: 'boolean', default: false, synopsis: false },
  promote: {
    type: 'string',
    multiple: true,
    default: [],
    value: 'FROM->TO',
    note: "repeatable; 'staging->production' means lock:deploy/staging -> lock:deploy/production",
    help: `
  TO is granted only to a commit (deploy.repository, deploy.commit) the ledger shows completed a hold
  on FROM (released, not outdated); else refused 'not_promoted', naming the step. Break-glass overrides.`,
    synopsis: false,
  },
  'github-token-file': {
    type: 'string',
    value: 'FILE',
    with: ['github-api-url'],
    help: `a descendant passes too: GitHub's
  compare is asked whether a commit that completed FROM contains it (the grant names it, promotedVia).
  The file is read at each question (a rotated token needs no restart); GitHub not answering refuses.`,
    synopsis: false,
  },
  'github-api-url': { type: 'string', value: 'https://api.github.com', synopsis: false },
} as const satisfies Record<string, Flag>;

export const KERNEL_FLAGS = {
  host: { type: 'string', default: '127.0.0.1', value: '127.0.0.1' },
  port: { type: 'string', default: '8787', value: '8787' },
  'ttl-ms': { type: 'string', default: '30000', value: '30000' },
  'lock-delay-ms': {
    type: 'string',
    value: 'N',
    help: `after a revoke, how long others wait at most for the holder to give back
  (default a third of --ttl-ms plus 2 s: 12000 for 30 s leases; 0: none).`,
  },
  'data-prefix': { type: 'string', value: 'PATH' },
  ledger: { type: 'string', value: 'FILE' },
  quiet: { type: 'boolean', default: false },
  'log-format': {
    type: 'string',
    value: 'text|json',
    synopsis: false,
    help: `text for people (the default), or one JSON object a line with level, time,
  msg and fields (resource, did, requestId, replica) for a log store; also LEASE_GATE_LOG_FORMAT.`,
  },
  state: { type: 'string', hidden: "--data-prefix's old name: still accepted, with a warning" },
  'exit-with-pid': {
    type: 'string',
    default: '0',
    hidden: "the action's dry run: the kernel goes when the job that started it goes",
  },
  'approver-oidc': {
    type: 'string',
    multiple: true,
    default: [],
    value: 'PATTERN',
    note: 'repeatable, needs --oidc-audience',
    help: `an OIDC identity (a glob over the token's
  sub, e.g. repo:acme/ops:environment:break-glass) may approve a break-glass too, as oidc:SUB.`,
    synopsis: false,
  },
  ...AUTH_FLAGS,
  'public-url': {
    type: 'string',
    multiple: true,
    default: [],
    value: 'URL',
    note: 'repeatable',
    help: `a URL clients reach it by beyond loopback and its listen address, such as
  the https:// one of a TLS proxy; other Host names are answered 421, other origins may not change leases.`,
    synopsis: false,
  },
  ...STORE_FLAGS,
  'signing-key': { type: 'string', value: 'FILE', required: true, synopsis: false },
  ...GATE_FLAGS,
  help: HELP_FLAG,
} as const satisfies Record<string, Flag>;

export const KERNEL = {
  usage: 'lease-gate kernel',
  flags: KERNEL_FLAGS,
  about: `  Serve the local plane. Prints "lease-gate kernel listening on http://HOST:PORT" first.
  LEASE_GATE_KERNEL_KEY: require this Bearer key (needed to listen beyond loopback, 16 characters at least there).
  LEASE_GATE_ADMIN_KEY: the key that may revoke, freeze and break glass (never the kernel key).
  LEASE_GATE_APPROVER_KEY: a second operator's key; each break-glass then waits for its approval.
  LEASE_GATE_METRICS_KEY: a key that reads GET /metrics (Prometheus) and nothing else; the admin key reads them too.`,
} as const satisfies CommandSpec;
