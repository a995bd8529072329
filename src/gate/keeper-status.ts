import * as z from 'zod/mini';

/**
 * What the keeper has seen, as its status file carries it across the process
 * boundary: one schema, and the types are what it parses (post, `run` and the
 * keeper itself read and write it through this).
 */

const text = z.string().check(z.maxLength(2_000));
const at = z.number().check(z.refine(Number.isFinite));

export const keepEnds = [
  'stopped',
  'lifetime',
  'parent-gone',
  'lost',
  'key-refused',
  'not-wanted',
] as const;

const lossSchema = z.object({
  /** When we learned of it (wall clock). */
  atMs: at,
  /** When the plane ended it, on the plane's clock (a watch's answer says). */
  endedAtMs: z.optional(at),
  /**
   * `lease_held`, `revoked`, `replaced` (the plane granted a new lease: ours had ended),
   * from a watch `lapsed`, `released` or `unknown`, `broken_plane` (a renewal not ours to
   * believe, given back), or the plane's reason.
   */
  reason: text,
  /** Who holds it now (for `revoked`: as the plane says). */
  holder: z.optional(text),
  /** The operator's message (revoked) or the plane's. */
  message: z.optional(text),
  /** `revoked`: who revoked (`operator:NAME`), when the plane names them. */
  by: z.optional(text),
  /** `replaced`: the lease the plane granted instead, which the keeper gave back at once. */
  newLeaseId: z.optional(text),
  gaveBack: z.optional(z.boolean()),
});

/** The keeper's record in its status file: its pid and what it has seen. */
export const keeperRecordSchema = z.object({
  pid: z.number().check(z.refine(Number.isInteger)),
  resource: text,
  actorDid: text,
  leaseId: text,
  fence: z.optional(z.number()),
  expiresAtMs: at,
  renewals: z.number(),
  /** Wall time of the last successful renewal. */
  lastRenewedAtMs: z.optional(at),
  failures: z.number(),
  lastError: z.optional(text),
  /** Said once: the plane told no lease time the keeper could read on its clock (lease-time.ts). */
  note: z.optional(text),
  /** Our lease ended under us; renewing stopped. */
  lost: z.optional(lossSchema),
  ended: z.optional(z.object({ atMs: at, why: z.enum(keepEnds) })),
});

export type KeeperRecord = z.infer<typeof keeperRecordSchema>;
/** What the keeper has seen; post (or `run`) reads it to tell what happened. */
export type KeeperStatus = Omit<KeeperRecord, 'pid'>;
export type Loss = z.infer<typeof lossSchema>;
export type KeepEnd = (typeof keepEnds)[number];
