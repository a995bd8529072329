import { errorMessage } from '../errors.js';
import { protectionRuleSchema, runIdFromCallback } from './events.js';
import type { RecoveredRequest } from './gatekeeper.js';
import type { GitHubApp } from './github.js';

/**
 * The app keeps its queue in memory: after a crash, runs that waited stay pending
 * (GitHub does not deliver again on its own). At start the app reads its own recent
 * deliveries from GitHub (`GET /app/hook/deliveries`, answered or not: a run that
 * waited was answered 202, one sent while the app was down failed) and the payload
 * of each protection-rule request (`GET /app/hook/deliveries/{id}`), one per run and
 * environment, oldest first. The gatekeeper then asks again only for runs GitHub
 * still shows `waiting`.
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
  /** One per run and environment: placed at its first delivery, with its newest payload. */
  const byRule = new Map<
    string,
    { first: number; firstId: number; newest: number; delivery: RecoveredRequest['delivery'] }
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
    const key = `${event.repository.full_name.toLowerCase()}#${runId}#${event.environment.toLowerCase()}`;
    const at = listedDelivery.deliveredAtMs;
    const order = listedDelivery.id;
    const known = byRule.get(key);
    const delivery = {
      id: `recovered-${listedDelivery.guid}`,
      event: 'deployment_protection_rule',
      payload,
    };
    if (!known) byRule.set(key, { first: at, firstId: order, newest: order, delivery });
    else {
      if (at < known.first || (at === known.first && order < known.firstId))
        Object.assign(known, { first: at, firstId: order });
      if (order > known.newest) Object.assign(known, { newest: order, delivery });
    }
  }
  return (
    [...byRule.values()]
      // GitHub's delivered_at is to the second; its delivery ids rise in the order sent.
      .sort((a, b) => a.first - b.first || a.firstId - b.firstId)
      .map((r) => ({ delivery: r.delivery, firstDeliveredAtMs: r.first }))
  );
}
