import * as z from 'zod/mini';
import { deploySchema } from '../../plane/deploy.js';
import { ENTRY_KINDS } from '../../plane/entry-kinds.js';

/**
 * A durable change (every grant, renewal, release, lapse, revocation, freeze
 * and unfreeze), as the rules make it and as a change notice carries it to
 * other replicas: one shape, checked wherever it arrives from outside.
 */
export const kernelEventSchema = z.object({
  // The ledger's entry kinds: one list, in plane/ so the console page needs no node code.
  kind: z.enum(ENTRY_KINDS),
  atMs: z.number(),
  resource: z.string(),
  actorDid: z.string(),
  leaseId: z.string(),
  fence: z.number(),
  /** The lease's end as the holder was told it (grants and renewals). */
  expiresAtMs: z.optional(z.number()),
  reason: z.optional(z.string()),
  /** Who revoked, `operator:NAME` (revokes whose operator gave a name), or opened a break-glass. */
  by: z.optional(z.string()),
  /** The second operator who approved a break-glass, when one had to. */
  approvedBy: z.optional(z.string()),
  /** The run and attempt whose OIDC token approved a break-glass (one approval, one pass). */
  approval: z.optional(z.string()),
  /**
   * A grant a break-glass let through: stamped in a run of +1 stamps, its entry carries the
   * clock that decided it (clockMs), so verify sees it came before the pass ended.
   */
  clocked: z.optional(z.boolean()),
  /** What the holder deploys (grants only). */
  deploy: z.optional(deploySchema),
  /**
   * A grant past a promotion step by a descendant (kernel --github-token-file): the commit
   * that completed the step before and contains this one, by GitHub's compare.
   */
  promotedVia: z.optional(z.string()),
  /** The OIDC issuer (URL) whose token the grant's holder proved itself with (grants only). */
  issuer: z.optional(z.string()),
});

export type KernelEvent = z.infer<typeof kernelEventSchema>;
export type KernelEventKind = KernelEvent['kind'];

// An unfreeze may free a resource too, and a break-glass lets its agent in: a held waiter asks again.
const FREEING: ReadonlySet<KernelEventKind> = new Set([
  'release',
  'lapse',
  'revoke',
  'unfreeze',
  'break_glass',
]);

/** Whether these changes may have freed their resource (held requests wake on it). */
export const frees = (events: readonly KernelEvent[]) => events.some((e) => FREEING.has(e.kind));
