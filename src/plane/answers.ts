import { ContractError } from './errors.js';
import { BrokenGrantError, grantProblem, type GrantProblem } from './grant.js';
import { deploySchema, supersededSchema } from './deploy.js';
import { field } from './json-body.js';
import {
  clipText,
  describeIssues,
  frozenSchema,
  grantedSchema,
  heldSchema,
  otherRefusalSchema,
  revokeAnswerSchema,
  revokedSchema,
  statusAnswerSchema,
  watchAnswerSchema,
  type FreezeStatus,
  type Lease,
  type LeaseAnswer,
  type LeaseRequest,
  type WatchAnswer,
} from './schema.js';
import type { RawAnswer } from './send.js';

/**
 * The readers of the plane's answers, one per route: each checks the body against the
 * contract (a ContractError names the field that is wrong) and reads it as the client's
 * answer, its untrusted texts clipped. No I/O: the client sends, these read.
 */

/** A frozen resource that names no back-off is asked again this often. */
const FROZEN_POLL_MS = 5_000;

type SafeResult<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };

/** The body as `schema` reads it, or a ContractError naming `call` and what does not match. */
export function checkAnswer<T>(
  schema: { safeParse(v: unknown): SafeResult<T> },
  raw: RawAnswer,
  call: string,
): T {
  const parsed = schema.safeParse(raw.body);
  if (parsed.success) return parsed.data;
  throw new ContractError(
    `${call}: the answer does not match the plane's contract: ${describeIssues(parsed.error)}`,
    { call, status: raw.status },
  );
}

/** The documented pair, plus the deploy's extension fields when the gate knows them. */
export function leaseRequestOf(req: LeaseRequest): LeaseRequest {
  const out: LeaseRequest = { resource: req.resource, actorDid: req.actorDid };
  if (req.deploy) out.deploy = req.deploy;
  if (req.queue) out.queue = req.queue;
  return out;
}

/** A lease call's body: the request without a release's fields (`outdated`). */
export const leaseBody = (req: LeaseRequest): Record<string, unknown> => ({
  ...leaseRequestOf(req),
});

/**
 * A lease answer, or what is wrong with the grant it makes: a broken grant is the
 * client's to give back (it needs the network) before it fails the call.
 */
export function readLease(
  raw: RawAnswer,
  req: LeaseRequest,
  call: string,
  wallNow: () => number,
): { answer: LeaseAnswer } | { broken: GrantProblem } {
  if (field(raw.body, 'ok') !== true) return { answer: interpretLease(raw, call) };
  const parsed = grantedSchema.safeParse(raw.body);
  const broken: GrantProblem | undefined = parsed.success
    ? grantProblem(parsed.data.lease, req, raw.dateMs ?? wallNow())
    : {
        field: fieldOf(parsed.error),
        problem: `does not match the plane's contract: ${describeIssues(parsed.error)}`,
      };
  if (!parsed.success || broken) return { broken: broken! };
  // Information only: a plane that omits it, or sends one we cannot read, leaves the check undone.
  const previous = deploySchema.safeParse(field(raw.body, 'previous'));
  return {
    answer: {
      kind: 'granted',
      lease: parsed.data.lease,
      preferenceApplied: raw.preferenceApplied,
      ...(raw.dateMs === undefined ? {} : { planeDateMs: raw.dateMs }),
      ...(previous.success && previous.data ? { previous: previous.data } : {}),
    },
  };
}

export function brokenGrantError(
  call: string,
  raw: RawAnswer,
  broken: GrantProblem,
  gaveBack: boolean,
): BrokenGrantError {
  return new BrokenGrantError(
    `${call}: the plane granted a lease that is not ours to believe: ${broken.field} ${broken.problem}. ${gaveBack ? 'It was given back' : 'Giving it back failed (it lapses on its own)'} by (resource, own DID); the plane looks broken.`,
    { call, status: raw.status, field: broken.field, gaveBack },
  );
}

/** A refusal (`ok` is not true) read as what it means for a waiter. */
function interpretLease(raw: RawAnswer, call: string): Exclude<LeaseAnswer, { kind: 'granted' }> {
  const refusal = checkAnswer(otherRefusalSchema, raw, call);
  if (refusal.reason === 'lease_held') {
    const held = checkAnswer(heldSchema, raw, call);
    return {
      kind: 'held',
      holder: held.holder,
      waitMs: held.stampede.waitMs,
      reserved: held.reserved === true,
      ...(held.position === undefined ? {} : { position: Math.floor(held.position) }),
      ...(held.etaMs === undefined ? {} : { etaMs: held.etaMs }),
      ...(held.overdueMs === undefined ? {} : { overdueMs: held.overdueMs }),
      preferenceApplied: raw.preferenceApplied,
    };
  }
  if (refusal.reason === 'frozen') {
    const frozen = checkAnswer(frozenSchema, raw, call);
    return {
      kind: 'frozen',
      message: clipText(frozen.message) || 'frozen by an operator',
      untilMs: frozen.until ?? undefined,
      waitMs: frozen.stampede?.waitMs ?? FROZEN_POLL_MS,
      position: frozen.position,
      preferenceApplied: raw.preferenceApplied,
    };
  }
  if (refusal.reason === 'revoked') {
    const revoked = checkAnswer(revokedSchema, raw, call);
    return {
      kind: 'revoked',
      holder: revoked.holder,
      message: clipText(revoked.message) || 'revoked by an operator',
      ...(revoked.by ? { by: clipText(revoked.by, 200) } : {}),
    };
  }
  if (refusal.reason === 'superseded') {
    return { kind: 'superseded', by: clipText(checkAnswer(supersededSchema, raw, call).by, 2048)! };
  }
  return {
    kind: 'refused',
    reason: clipText(refusal.reason, 200)!,
    message: clipText(refusal.message),
  };
}

function fieldOf(error: { issues: ReadonlyArray<{ path: PropertyKey[] }> }): string {
  const path = error.issues[0]?.path ?? [];
  return path.length ? path.map(String).join('.') : '(body)';
}

/** The lease on a resource and, from the bundled kernel, the freeze in force. */
export function readStatus(
  raw: RawAnswer,
  call: string,
): { lease: Lease | null; frozen: FreezeStatus | undefined } {
  const answer = checkAnswer(statusAnswerSchema, raw, call);
  const frozen = answer.frozen
    ? {
        by: clipText(answer.frozen.by, 200) ?? '',
        reason: clipText(answer.frozen.reason) ?? '',
        untilMs: answer.frozen.until,
      }
    : undefined;
  return { lease: answer.lease, frozen };
}

export function readWatch(raw: RawAnswer, call: string): WatchAnswer {
  const answer = checkAnswer(watchAnswerSchema, raw, call);
  if (!answer.ended) return { kind: 'held' };
  return {
    kind: 'ended',
    reason: clipText(answer.reason, 200) ?? 'unknown',
    endedAtMs: answer.endedAtMs,
    message: clipText(answer.message),
    holder: answer.holder,
    ...(answer.by ? { by: clipText(answer.by, 200) } : {}),
  };
}

export function readRevoke(
  raw: RawAnswer,
  call: string,
): { revoked: boolean; leaseId?: string | undefined; holder?: string | undefined } {
  const answer = checkAnswer(revokeAnswerSchema, raw, call);
  return {
    revoked: answer.revoked,
    leaseId: answer.leaseId ?? undefined,
    holder: answer.holder ?? undefined,
  };
}
