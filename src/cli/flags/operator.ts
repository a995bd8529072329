import {
  API_URL,
  COMMON_FLAGS,
  HELP_FLAG,
  JSON_FLAG,
  OIDC_TOKEN_FILE,
  RESOURCE,
  WAIT_TIMEOUT,
  ACTOR_DID,
  common,
} from './plane.js';
import type { CommandSpec, Flag } from './table.js';

/** The operator's commands (an admin key's): revoke, freeze, unfreeze and break glass. */

const BY = { type: 'string', value: 'NAME' } as const satisfies Flag;
const REASON = { type: 'string', value: 'TEXT' } as const satisfies Flag;
/** The pass's job: one DID, or any job of a run (`or`: one of the two). */
const AGENT = { type: 'string', value: 'DID', required: true } as const satisfies Flag;
const RUN = {
  type: 'string',
  value: 'OWNER/REPO/RUN_ID',
  or: true,
} as const satisfies Flag;
/** The two flags every operator command ends with. */
const TAIL = { 'api-url': API_URL, json: JSON_FLAG, ...COMMON_FLAGS } as const;

export const REVOKE = {
  usage: 'lease-gate revoke',
  flags: { resource: RESOURCE, reason: REASON, by: BY, ...TAIL },
  about: `  End a lease now (needs LEASE_GATE_ADMIN_KEY). Its holder's watch hears it at once; the next agent is
  granted once the holder gives back or the lock-delay passes. --by NAME: who the ledger names as
  having revoked it (operator:NAME).`,
} as const satisfies CommandSpec;

export const FREEZE = {
  usage: 'lease-gate freeze',
  flags: {
    resource: RESOURCE,
    reason: { ...REASON, required: true },
    until: { type: 'string', value: 'TIME' },
    for: { type: 'string', value: 'DURATION', or: true },
    by: BY,
    ...TAIL,
  },
  about: `  Grant the resource to nobody new until TIME (ISO 8601 with a zone), for DURATION (90m, 4h, 3d) or until
  unfrozen (needs LEASE_GATE_ADMIN_KEY). The holder keeps it (revoke it too to stop it); waiters keep
  their place and are told "frozen until … by an operator: TEXT". --by NAME: who the ledger names
  (operator:NAME; letters, digits, . _ @ -, up to 64), else operator:admin-key.`,
} as const satisfies CommandSpec;

export const UNFREEZE = {
  usage: 'lease-gate unfreeze',
  flags: { resource: RESOURCE, by: BY, ...TAIL },
  about: `  End a freeze (needs LEASE_GATE_ADMIN_KEY); the next in line is granted it. --by NAME as for freeze.`,
} as const satisfies CommandSpec;

export const BREAK_GLASS = {
  usage: 'lease-gate break-glass',
  flags: {
    resource: RESOURCE,
    agent: AGENT,
    run: RUN,
    reason: { ...REASON, required: true },
    for: { type: 'string', value: 'DURATION' },
    by: BY,
    // Its own synopsis, BREAK_GLASS_CANCEL's, says it.
    cancel: { type: 'boolean', synopsis: false },
    ...TAIL,
  },
  about: `  Let one job (its DID, as the console's queue lists it; or any job of a GitHub run, any attempt, as a
  refused job's log names it: the hotfix path) be granted the resource once, past a freeze, the promotion order,
  a window, a health check's hold and the queue, for DURATION (default 15m, at most 1h; needs
  LEASE_GATE_ADMIN_KEY). Never past a holder or a revoke. Recorded in the ledger with TEXT and --by.
  With a kernel started with LEASE_GATE_APPROVER_KEY or --approver-oidc it waits for approve-break-glass.`,
} as const satisfies CommandSpec;

/** `break-glass --cancel`: the same command's second form, parsed with BREAK_GLASS's table. */
export const BREAK_GLASS_CANCEL = {
  usage: 'lease-gate break-glass',
  flags: {
    cancel: { type: 'boolean', required: true },
    resource: RESOURCE,
    agent: { ...AGENT, required: false },
    run: RUN,
    by: BY,
    'api-url': API_URL,
    json: JSON_FLAG,
  },
  about: `  Withdraw the unused break-glass (only --agent's or --run's, when given): a signed ledger entry, so a restart
  does not bring it back. A new break-glass withdraws the last the same way.`,
} as const satisfies CommandSpec;

export const APPROVE_BREAK_GLASS = {
  usage: 'lease-gate approve-break-glass',
  flags: {
    resource: RESOURCE,
    agent: AGENT,
    run: RUN,
    by: { ...BY, required: true },
    'oidc-token-file': { ...OIDC_TOKEN_FILE, or: true },
    'api-url': API_URL,
    json: JSON_FLAG,
    'actor-did': common(ACTOR_DID),
    'wait-timeout': common(WAIT_TIMEOUT),
    help: HELP_FLAG,
  },
  about: `  The second operator's approval of a break-glass: with LEASE_GATE_APPROVER_KEY and --by NAME (NAME must
  not be the operator who opened it), or as an OIDC identity the kernel's --approver-oidc allows, its ID
  token read from FILE (then the ledger names it oidc:SUB; not the job's own run). Recorded as approvedBy.`,
} as const satisfies CommandSpec;
