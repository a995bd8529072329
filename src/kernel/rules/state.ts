/**
 * The one statement of what the rules keep for a resource (rules.ts): the
 * schema every reader of a stored state checks against (a PostgreSQL row, a
 * snapshot file), and the types the rules use, inferred from it. Adding a
 * field is done here, once. Pure: no I/O.
 */
import * as z from 'zod/mini';
import { deploySchema, queueSchema } from '../../plane/deploy.js';

export const leaseRecordSchema = z.object({
  id: z.string(),
  resource: z.string(),
  holder: z.string(),
  expiresAtMs: z.number(),
  fence: z.number().check(z.int()),
  grantedAtMs: z.number(),
  /** What the holder said it deploys (extension fields of its request). */
  deploy: z.optional(deploySchema),
});

export const waiterSchema = z.object({
  actorDid: z.string(),
  /** When this waiter must have asked again to keep its place. */
  keepUntil: z.number(),
  /** When it first asked (epoch ms, the kernel's clock): the console's "waited". Absent in older rows. */
  sinceMs: z.optional(z.number()),
  /** What it deploys and whether it steps aside for newer runs of its lane (deploy-order.ts). */
  deploy: z.optional(deploySchema),
  queue: z.optional(queueSchema),
});

/**
 * An operator's revoke: the revoked agent is refused here until `untilMs`, and so is
 * every other DID of the same run attempt (`revokeRefuses`): a job asking again under
 * a new nonce is the same run, not a new agent.
 */
export const revokedMarkSchema = z.object({
  actorDid: z.string(),
  message: z.string(),
  untilMs: z.number(),
  /** Who revoked (`operator:NAME`), when named: the revoked holder is told. */
  by: z.optional(z.string()),
});

/** A revoked holder that has not given the resource back yet: nobody else gets it until `untilMs`. */
export const lockDelaySchema = z.object({
  actorDid: z.string(),
  leaseId: z.string(),
  untilMs: z.number(),
});

/** A waiter a newer run of its lane superseded (deploy-order.ts). */
export const supersededMarkSchema = z.object({
  actorDid: z.string(),
  by: z.string(),
  untilMs: z.number(),
});

/** The live grant of one repository on a resource, and the one before it. */
export const repositoryDeploysSchema = z.object({
  repository: z.string(),
  live: deploySchema,
  before: z.optional(deploySchema),
});

/** Why and until when (null: until unfrozen) a resource takes no new holder. */
export const freezeSchema = z.object({
  reason: z.string(),
  untilMs: z.nullable(z.number()),
  /** Who froze it, as the ledger names them. */
  by: z.string(),
  atMs: z.number(),
});

/** An operator's break-glass (break-glass.ts): one agent let through a freeze once. */
export const breakGlassSchema = z.object({
  actorDid: z.string(),
  reason: z.string(),
  by: z.string(),
  untilMs: z.number(),
  atMs: z.number(),
  /** Waiting for a second operator's approval: not usable yet, and not on the ledger. */
  pending: z.boolean(),
  approvedBy: z.optional(z.string()),
  /** The OIDC approval's run and attempt (one approval approves one pass). */
  approval: z.optional(z.string()),
});

/**
 * Everything the rules know about one resource; small and plain JSON. The
 * optional fields came later: rows and snapshots written before them still read.
 */
export const resourceStateSchema = z.object({
  resource: z.string(),
  lease: z.nullable(leaseRecordSchema),
  queue: z.array(waiterSchema),
  /** Until when a freed resource is kept for the head of the queue (0: not kept). */
  reservedUntilMs: z.number(),
  /** A moving average of how long holders kept it. */
  typicalHoldMs: z.nullable(z.number()),
  revoked: z.array(revokedMarkSchema),
  /** Set by a revoke; cleared when the revoked holder gives the resource back or at `untilMs`. */
  lockDelay: z.optional(lockDelaySchema),
  /** Waiters a newer run of their lane superseded (deploy-order.ts). */
  superseded: z.optional(z.array(supersededMarkSchema)),
  /** Each repository's last grant here, for `previous` (deploy-order.ts). */
  deploys: z.optional(z.array(repositoryDeploysSchema)),
  /** An operator's freeze (see freeze.ts): no new grant until it ends. */
  frozen: z.optional(freezeSchema),
  /**
   * The end of the recurring window (windows.ts) that last refused a waiter here: the
   * window is configuration, not state, so this is how the rules see it end (thawed).
   */
  windowUntilMs: z.optional(z.number()),
  /** An operator's break-glass not used yet (break-glass.ts). */
  breakGlass: z.optional(breakGlassSchema),
});

export type LeaseRecord = z.infer<typeof leaseRecordSchema>;
export type Waiter = z.infer<typeof waiterSchema>;
export type RevokedMark = z.infer<typeof revokedMarkSchema>;
export type LockDelay = z.infer<typeof lockDelaySchema>;
export type SupersededMark = z.infer<typeof supersededMarkSchema>;
export type RepositoryDeploys = z.infer<typeof repositoryDeploysSchema>;
export type Freeze = z.infer<typeof freezeSchema>;
export type BreakGlass = z.infer<typeof breakGlassSchema>;
export type ResourceState = z.infer<typeof resourceStateSchema>;

/** A stored state checked like any outside input, or undefined when it is not one. */
export function readResourceState(raw: unknown, resource?: string): ResourceState | undefined {
  const parsed = resourceStateSchema.safeParse(raw);
  if (!parsed.success || (resource !== undefined && parsed.data.resource !== resource))
    return undefined;
  return parsed.data;
}
