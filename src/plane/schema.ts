import * as z from 'zod/mini';
import { CONTROL_CHARS } from '../control-chars.js';
import { deploySchema, type Deploy, type QueueMode } from './deploy.js';

/**
 * The plane's wire contract (CONTRACT.md part 1 and interfaces.md). Only the
 * fields we use are validated, and bounded: every answer is untrusted input.
 * Unknown fields are accepted and ignored. zod/mini keeps this off the
 * start-up bill (every job pays it twice).
 */

export const LEASE_PATH = '/api/v1/acp/coordination/lease';
export const RELEASE_PATH = '/api/v1/acp/coordination/release';
export const REVOKE_PATH = '/api/v1/acp/coordination/revoke';
/** The bundled kernel's watch on one's own lease (answered when it ends); other planes may 404. */
export const WATCH_PATH = '/api/v1/acp/coordination/watch';
/** The bundled kernel's operator freeze (admin key), CONTRACT.md part 3. */
export const FREEZE_PATH = '/api/v1/acp/coordination/freeze';
export const UNFREEZE_PATH = '/api/v1/acp/coordination/unfreeze';
/** The bundled kernel's break-glass (admin key) and its second operator's approval (approver key). */
export const BREAK_GLASS_PATH = '/api/v1/acp/coordination/break-glass';
export const APPROVE_BREAK_GLASS_PATH = '/api/v1/acp/coordination/break-glass/approve';
export const WITHDRAW_BREAK_GLASS_PATH = '/api/v1/acp/coordination/break-glass/withdraw';
/** The local kernel's overview of every resource with a lease, a reservation or waiters. */
export const KERNEL_RESOURCES_PATH = '/api/v1/kernel/resources';
/** The local kernel's ledger routes (the hosted plane documents a ledger, not yet its routes). */
export const LEDGER_PATHS = {
  checkpoint: '/api/v1/acp/ledger/checkpoint',
  bundle: '/api/v1/acp/ledger/bundle',
  publicKey: '/api/v1/acp/ledger/public-key',
} as const;

/** A resource name: printable ASCII without spaces, as `lock:deploy/production`. */
/**
 * The name an operator gives itself on a freeze or unfreeze (the console's "Your name",
 * the CLI's --by), recorded in the ledger as `operator:NAME`: one short word of a safe
 * charset, so it reads the same in a terminal and a page and cannot pass for a job's DID.
 */
export const OPERATOR_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const OPERATOR_NAME_FORM =
  'a name of 1 to 64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';

export const RESOURCE_PATTERN = /^[\x21-\x7e]{1,256}$/;
export const RESOURCE_FORM =
  '1 to 256 printable characters without spaces, such as lock:deploy/production';

/** did:<method>:<method-specific id> with the DID syntax's characters. */
export const DID_PATTERN =
  /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*)*$/;
export const MAX_DID_LENGTH = 512;
export const DID_FORM = `a DID of the form did:<method>:<id>, at most ${MAX_DID_LENGTH} characters`;
export const isDid = (value: string) => value.length <= MAX_DID_LENGTH && DID_PATTERN.test(value);

/** The range of a JavaScript Date: an expiry outside it cannot be shown, so it is refused. */
export const MAX_EPOCH_MS = 8.64e15;
/** No plane back-off is longer than a day; longer is a broken answer. */
export const MAX_WAIT_MS = 86_400_000;
const MAX_TEXT = 1_000;

/** A DID and a resource name as a request names them, each refusal naming the accepted form. */
export const didSchema = z.string().check(z.refine(isDid, `expected ${DID_FORM}`));
export const resourceSchema = z
  .string()
  .check(z.regex(RESOURCE_PATTERN, `expected ${RESOURCE_FORM}`));
const shortText = (max: number) =>
  z
    .string()
    .check(
      z.minLength(1, 'expected a non-empty string'),
      z.maxLength(max, `expected at most ${max} characters`),
    );
const boundedNumber = (min: number, max: number, what: string) =>
  z.number().check(z.refine((n) => Number.isFinite(n) && n >= min && n <= max, `expected ${what}`));

export const leaseSchema = z.object({
  id: shortText(256),
  resource: shortText(256),
  holder: didSchema,
  expiresAtMs: boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds within the range of a date'),
  /**
   * The bundled kernel's: how long this grant or renewal runs from when the plane decided
   * it (a lease time, not a point on any clock), so the keeper paces without a wall clock.
   * One we cannot read is dropped (the keeper falls back to the documented 30 s).
   */
  ttlMs: z.optional(
    z.catch(z.optional(boundedNumber(1, 3_600_000, 'milliseconds from 1 to an hour')), undefined),
  ),
  /** Only the bundled kernel promises a fencing token. */
  fence: z.optional(
    boundedNumber(0, Number.MAX_SAFE_INTEGER, 'a whole number from 0 to 2^53-1').check(
      z.refine(Number.isInteger, 'expected a whole number'),
    ),
  ),
  /** The kernel's extension (plane/deploy.ts): what the holder deploys; one we cannot read is dropped. */
  deploy: z.optional(z.catch(z.optional(deploySchema), undefined)),
});
export type Lease = z.infer<typeof leaseSchema>;

export const grantedSchema = z.object({ ok: z.literal(true), lease: leaseSchema });

export const heldSchema = z.object({
  ok: z.literal(false),
  reason: z.literal('lease_held'),
  holder: didSchema,
  reserved: z.optional(z.boolean()),
  stampede: z.object({ waitMs: boundedNumber(0, MAX_WAIT_MS, 'milliseconds from 0 to a day') }),
  position: z.optional(boundedNumber(0, 1e9, 'a queue position')),
  /** The plane's estimate of the wait; optional (the kernel names it once a hold has ended). */
  etaMs: z.optional(boundedNumber(0, MAX_WAIT_MS * 30, 'milliseconds from 0 to 30 days')),
  /** How far the holder runs past a typical hold, when it does (the kernel's). */
  overdueMs: z.optional(boundedNumber(0, MAX_WAIT_MS * 30, 'milliseconds from 0 to 30 days')),
});

/** The kernel's operator freeze (CONTRACT.md part 3): a wait, within the gate's budget. */
export const frozenSchema = z.object({
  ok: z.literal(false),
  reason: z.literal('frozen'),
  message: z.optional(z.string()),
  until: z.optional(z.nullable(boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds'))),
  stampede: z.optional(
    z.object({ waitMs: boundedNumber(0, MAX_WAIT_MS, 'milliseconds from 0 to a day') }),
  ),
  position: z.optional(boundedNumber(0, 1e9, 'a queue position')),
});

export const revokedSchema = z.object({
  ok: z.literal(false),
  reason: z.literal('revoked'),
  holder: z.optional(didSchema),
  message: z.optional(z.string()),
  /** Who revoked (`operator:NAME`), when the plane names them. */
  by: z.optional(shortText(200)),
});

export const otherRefusalSchema = z.object({
  ok: z.literal(false),
  reason: shortText(200),
  message: z.optional(z.string()),
});

export const releaseAnswerSchema = z.object({
  releasedIds: z.array(shortText(256)).check(z.maxLength(100, 'expected at most 100 ids')),
});

export const statusAnswerSchema = z.object({
  ok: z.literal(true),
  lease: z.nullable(leaseSchema),
  /** The bundled kernel's freeze in force (an operator's or a recurring window); other planes leave it out. */
  frozen: z.optional(
    z.nullable(
      z.object({
        by: shortText(512),
        reason: z.string().check(z.maxLength(10_000, 'expected at most 10000 characters')),
        until: z.nullable(boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds')),
      }),
    ),
  ),
});

/** A freeze as `status` shows it: its texts clipped to one line (still untrusted: escape to print). */
export interface FreezeStatus {
  by: string;
  reason: string;
  /** When it ends on the plane's clock; null: until unfrozen. */
  untilMs: number | null;
}

export const revokeAnswerSchema = z.object({
  ok: z.literal(true),
  revoked: z.boolean(),
  /** The bundled kernel names the lease it ended and its holder; other planes may not. */
  leaseId: z.optional(z.nullable(shortText(256))),
  holder: z.optional(z.nullable(didSchema)),
});

/** The kernel's watch answer: still held, or how and when the lease ended (all of it untrusted). */
export const watchAnswerSchema = z.object({
  ok: z.literal(true),
  ended: z.boolean(),
  reason: z.optional(shortText(200)),
  endedAtMs: z.optional(
    boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds within the range of a date'),
  ),
  message: z.optional(z.string()),
  holder: z.optional(didSchema),
  /** Who revoked (`operator:NAME`), when the plane names them. */
  by: z.optional(shortText(200)),
});

/** What a watch on one's own lease came to. */
export type WatchAnswer =
  | { kind: 'held' }
  | {
      kind: 'ended';
      /** `revoked`, `lapsed`, `released`, `unknown` or the plane's word, clipped. */
      reason: string;
      /** On the plane's clock, when it says. */
      endedAtMs: number | undefined;
      message: string | undefined;
      /** Who holds the resource now, when the plane says. */
      holder: string | undefined;
      /** Who revoked it, when the plane names them. */
      by?: string | undefined;
    }
  /** The plane has no watch (404/405/501): renewals alone tell of a loss. */
  | { kind: 'unsupported' };

export const freezeAnswerSchema = z.object({
  ok: z.literal(true),
  frozen: z.boolean(),
  until: z.optional(z.nullable(boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds'))),
  /** Whether the command changed anything (unfreezing what was not frozen does not). */
  changed: z.boolean(),
});

/** The bundled kernel's break-glass, as opened or approved (its texts are untrusted: escape to print). */
export const breakGlassAnswerSchema = z.object({
  ok: z.literal(true),
  actorDid: z.string().check(z.maxLength(MAX_DID_LENGTH)),
  reason: z.string().check(z.maxLength(1_000)),
  by: z.string().check(z.maxLength(100)),
  until: boundedNumber(0, MAX_EPOCH_MS, 'epoch milliseconds'),
  /** Waiting for the second operator's approval. */
  pending: z.boolean(),
  approvedBy: z.optional(z.string().check(z.maxLength(300))),
  /** The run and attempt whose OIDC token approved it (one approval approves one pass). */
  approval: z.optional(z.string().check(z.maxLength(MAX_DID_LENGTH))),
  /** The answer of a withdrawal: this pass is gone. */
  withdrawn: z.optional(z.literal(true)),
});
export type BreakGlassAnswer = z.infer<typeof breakGlassAnswerSchema>;

export interface LeaseRequest {
  resource: string;
  actorDid: string;
  /** Extension fields (plane/deploy.ts): sent with lease requests only; planes that do not know them ignore them. */
  deploy?: Deploy | undefined;
  queue?: QueueMode | undefined;
  /** Release only: the holder did not deploy (an older commit); the kernel undoes its grant for `previous`. */
  outdated?: boolean | undefined;
}

/** What a lease request can come to, once the body is checked. */
export type LeaseAnswer =
  | {
      kind: 'granted';
      lease: Lease;
      /** The plane held the request as asked by `Prefer: wait` before granting it. */
      preferenceApplied?: boolean;
      /** The deploy of the last grant here from the same repository, when the plane says (the kernel does). */
      previous?: Deploy;
      /** The answer's Date header (epoch ms on the plane's clock, whole seconds), when readable. */
      planeDateMs?: number;
    }
  | {
      kind: 'held';
      holder: string;
      waitMs: number;
      /** Free, but kept for `holder`, the next in line, for a short grace. */
      reserved: boolean;
      /** Our place in the queue (0: next in line), when the plane says. */
      position?: number | undefined;
      /** The plane's estimate of how long the wait will be, when it gives one. */
      etaMs?: number | undefined;
      /** How far the holder runs past a typical hold, when the plane says it does. */
      overdueMs?: number | undefined;
      /** The plane held the request as asked by `Prefer: wait` (RFC 7240). */
      preferenceApplied: boolean;
    }
  | {
      kind: 'frozen';
      /** The operator's words (clipped). */
      message: string;
      /** When the freeze ends on the plane's clock (information only), or undefined. */
      untilMs: number | undefined;
      waitMs: number;
      position?: number | undefined;
      /** The plane held the request as asked by `Prefer: wait` (the kernel holds frozen waiters). */
      preferenceApplied?: boolean;
    }
  | { kind: 'revoked'; holder: string | undefined; message: string; by?: string | undefined }
  /** A newer run of the same lane took this waiter's place: final, and not a failure. */
  | { kind: 'superseded'; by: string }
  | { kind: 'refused'; reason: string; message: string | undefined };

export interface ReleaseAnswer {
  released: boolean;
  releasedIds: string[];
}

/** Plane text is bounded before anything else sees it. */
export function clipText(text: string | undefined, max = MAX_TEXT): string | undefined {
  if (text === undefined) return undefined;
  const line = text
    .replace(/\r/g, '%0D')
    .replace(/\n/g, '%0A')
    // Plane text never carries a control character onward.
    .replace(CONTROL_CHARS, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** Turns a zod failure into "field: problem" that a person can act on. */
export function describeIssues(error: {
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>;
}): string {
  return error.issues
    .slice(0, 5)
    .map(
      (issue) =>
        `${issue.path.length ? issue.path.map(String).join('.') : '(body)'}: ${issue.message}`,
    )
    .join('; ');
}
