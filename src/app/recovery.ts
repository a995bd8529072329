import { errorMessage } from '../errors.js';
import { deploymentReviewSchema, protectionRuleSchema, runIdFromCallback } from './events.js';
import type { RecoveredRequest } from './gatekeeper.js';
import type { GitHubApp, HookDelivery } from './github.js';

/**
 * The app keeps its queue in memory: after a crash, runs that waited stay pending
 * (GitHub does not deliver again on its own). At start the app reads its own recent
 * deliveries from GitHub (`GET /app/hook/deliveries`, answered or not: a run that
 * waited was answered 202, one sent while the app was down failed) and the payload
 * of each protection-rule request (`GET /app/hook/deliveries/{id}`), one per run and
 * environment, oldest first. A run whose reviewers approved it (a `deployment_review`
 * delivery) takes its place at that approval, as it did live: at the back of the runs
 * that came before it. The gatekeeper then asks again only for runs GitHub still shows
 * `waiting`, and keeps the leases of runs approved before the restart (adopt.ts).
 */

/** GitHub keeps an App's deliveries for 3 days. */
export const RECOVERY_WINDOW_MS = 3 * 24 * 3_600_000;
/** At most this many deliveries are listed, and this many requests read. */
const MAX_LISTED = 3_000;
const MAX_REQUESTS = 1_000;

export interface RecoveryOptions {
  github: GitHubApp;
  wallNow: () => number;
  log: (line: string) => void;
  windowMs?: number;
}

export async function findPendingRequests(options: RecoveryOptions): Promise<RecoveredRequest[]> {
  const { github, log } = options;
  const listed = await github.listDeliveries({
    sinceMs: options.wallNow() - (options.windowMs ?? RECOVERY_WINDOW_MS),
    maxItems: MAX_LISTED,
  });
  const requests = listed
    .filter((d) => d.event === 'deployment_protection_rule' && d.action === 'requested')
    .slice(0, MAX_REQUESTS);
  const reviewedAt = await reviewApprovals(options, listed);
  /** One per run and environment: placed at its first delivery, with its newest payload. */
  const byRule = new Map<
    string,
    {
      run: string;
      first: number;
      firstId: number;
      newest: number;
      delivery: RecoveredRequest['delivery'];
    }
  >();
  for (const listedDelivery of requests) {
    let payload: unknown;
    try {
      payload = await github.deliveryPayload(listedDelivery.id);
    } catch (error) {
      log(
        `recovery: could not read delivery ${listedDelivery.id}: ${errorMessage(error)}; skipped`,
      );
      continue;
    }
    const parsed = protectionRuleSchema.safeParse(payload);
    if (!parsed.success) continue;
    const event = parsed.data;
    const runId = runIdFromCallback(event.deployment_callback_url, event.repository.full_name);
    if (!runId) continue;
    const run = `${event.repository.full_name.toLowerCase()}#${runId}`;
    const key = `${run}#${event.environment.toLowerCase()}`;
    const at = listedDelivery.deliveredAtMs;
    const order = listedDelivery.id;
    const known = byRule.get(key);
    const delivery = {
      id: `recovered-${listedDelivery.guid}`,
      event: 'deployment_protection_rule',
      payload,
    };
    if (!known) byRule.set(key, { run, first: at, firstId: order, newest: order, delivery });
    else {
      if (at < known.first || (at === known.first && order < known.firstId))
        Object.assign(known, { first: at, firstId: order });
      if (order > known.newest) Object.assign(known, { newest: order, delivery });
    }
  }
  const placed = [...byRule.values()].map((r) => {
    // Joined the queue when its reviewers approved, if that came after its request.
    const review = reviewedAt.get(r.run);
    const late = review && review.at >= r.first;
    return { ...r, at: late ? review.at : r.first, atId: late ? review.id : r.firstId };
  });
  return (
    placed
      // GitHub's delivered_at is to the second; its delivery ids rise in the order sent.
      .sort((a, b) => a.at - b.at || a.atId - b.atId)
      .map((r) => ({ delivery: r.delivery, firstDeliveredAtMs: r.first }))
  );
}

/** When each run's reviewers last approved it (its newest `deployment_review` `approved`), by run. */
async function reviewApprovals(
  options: RecoveryOptions,
  listed: HookDelivery[],
): Promise<Map<string, { at: number; id: number }>> {
  const found = new Map<string, { at: number; id: number }>();
  const approvals = listed
    .filter((d) => d.event === 'deployment_review' && d.action === 'approved')
    .slice(0, MAX_REQUESTS);
  for (const listedDelivery of approvals) {
    let payload: unknown;
    try {
      payload = await options.github.deliveryPayload(listedDelivery.id);
    } catch (error) {
      options.log(
        `recovery: could not read delivery ${listedDelivery.id}: ${errorMessage(error)}; skipped`,
      );
      continue;
    }
    const parsed = deploymentReviewSchema.safeParse(payload);
    if (!parsed.success) continue;
    const key = `${parsed.data.repository.full_name.toLowerCase()}#${parsed.data.workflow_run.id}`;
    const known = found.get(key);
    if (!known || listedDelivery.id > known.id)
      found.set(key, { at: listedDelivery.deliveredAtMs, id: listedDelivery.id });
  }
  return found;
}
