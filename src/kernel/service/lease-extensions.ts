import {
  cleanDeploy,
  leaseExtensionSchema,
  type Deploy,
  type QueueMode,
} from '../../plane/deploy.js';
import { describeIssues } from '../../plane/schema.js';

export interface LeaseExtensions {
  deploy?: Deploy;
  queue?: QueueMode;
  /**
   * Set by the kernel, never read from a body: why this deploy breaks the promotion order
   * (service/promotions.ts); the rules refuse it unless a break-glass names the agent.
   */
  unpromoted?: string;
  /** Set by the kernel too: the descendant that completed the step before (GitHub's compare). */
  promotedVia?: string;
  /** Set by the kernel too: the OIDC issuer (URL) of the asker's token, on its grant's entry. */
  issuer?: string;
}

/**
 * The extension fields of a lease body (plane/deploy.ts), validated and
 * bounded: `{ error }` names the first bad field (answered 400); a body
 * without them costs one property lookup each.
 */
export function leaseExtensions(body: unknown): LeaseExtensions | { error: string } {
  const { deploy, queue } = (body ?? {}) as { deploy?: unknown; queue?: unknown };
  if (deploy === undefined && queue === undefined) return {};
  const parsed = leaseExtensionSchema.safeParse({ deploy, queue });
  if (!parsed.success) return { error: describeIssues(parsed.error) };
  const out: LeaseExtensions = {};
  const clean = parsed.data.deploy && cleanDeploy(parsed.data.deploy);
  if (clean) out.deploy = clean;
  if (parsed.data.queue) out.queue = parsed.data.queue;
  return out;
}

/** The release body's one extension: `outdated: true` (the holder did not deploy). */
export function releaseOutdated(body: unknown): boolean | { error: string } {
  const { outdated } = (body ?? {}) as { outdated?: unknown };
  if (outdated === undefined || outdated === false) return false;
  if (outdated === true) return true;
  return { error: 'outdated: expected true or false' };
}
