import { z } from 'zod';

/**
 * The plane's wire contract (CONTRACT.md part 1). Only the fields we use are
 * validated; unknown fields are accepted and ignored so that a plane that grows
 * its answers does not break old gates.
 */

export const LEASE_PATH = '/api/v1/acp/coordination/lease';
export const RELEASE_PATH = '/api/v1/acp/coordination/release';
export const REVOKE_PATH = '/api/v1/acp/coordination/revoke';
/** The local kernel's overview of every resource with a lease, a reservation or waiters. */
export const KERNEL_RESOURCES_PATH = '/api/v1/kernel/resources';
/** The local kernel's ledger routes (the hosted plane documents a ledger, not yet its routes). */
export const LEDGER_PATHS = {
  checkpoint: '/api/v1/acp/ledger/checkpoint',
  bundle: '/api/v1/acp/ledger/bundle',
  publicKey: '/api/v1/acp/ledger/public-key',
} as const;

/** A resource name: printable ASCII without spaces, as `lock:deploy/production`. */
export const RESOURCE_PATTERN = /^[\x21-\x7e]{1,256}$/;
export const RESOURCE_FORM =
  '1 to 256 printable characters without spaces, such as lock:deploy/production';

/** did:<method>:<method-specific id> with the DID syntax's characters. */
export const DID_PATTERN =
  /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*)*$/;
export const DID_FORM = 'a DID of the form did:<method>:<id>';
export const isDid = (value: string) => value.length <= 512 && DID_PATTERN.test(value);

export const leaseSchema = z.object({
  id: z.string().min(1),
  resource: z.string(),
  holder: z.string(),
  expiresAtMs: z.number().finite(),
  /** Only the bundled kernel promises a fencing token. */
  fence: z.number().int().nonnegative().optional(),
});
export type Lease = z.infer<typeof leaseSchema>;

export const grantedSchema = z.object({ ok: z.literal(true), lease: leaseSchema });

export const heldSchema = z.object({
  ok: z.literal(false),
  reason: z.literal('lease_held'),
  holder: z.string().min(1),
  stampede: z.object({ waitMs: z.number().finite().nonnegative() }),
});

export const otherRefusalSchema = z.object({
  ok: z.literal(false),
  reason: z.string().min(1),
  message: z.string().optional(),
});

export const releaseAnswerSchema = z.object({
  released: z.unknown(),
  releasedIds: z.array(z.string()),
});

export const statusAnswerSchema = z.object({
  ok: z.literal(true),
  lease: leaseSchema.nullable(),
});

export const revokeAnswerSchema = z.object({
  ok: z.literal(true),
  revoked: z.boolean(),
  leaseId: z.string().nullable().optional(),
});

export interface LeaseRequest {
  resource: string;
  actorDid: string;
}

/** What a lease request can come to, once the body is checked. */
export type LeaseAnswer =
  | { kind: 'granted'; lease: Lease }
  | { kind: 'held'; holder: string; waitMs: number }
  | { kind: 'refused'; reason: string; message: string | undefined };

export interface ReleaseAnswer {
  released: boolean;
  releasedIds: string[];
}

/** Turns a zod failure into "field: problem" that a person can act on. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(body)'}: ${issue.message}`)
    .join('; ');
}
