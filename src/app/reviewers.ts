import { errorMessage } from '../errors.js';
import { formatDuration } from '../gate/duration.js';
import type { Review } from './approval.js';
import { deploymentReviewSchema } from './events.js';
import { runKey, type Arrival, type Gate, type GateState, type Wait } from './gate.js';
import type { Delivery } from './receiver.js';
import type { Repo } from './github.js';

/**
 * A run whose environment requires reviewers joins the queue only once they approved it:
 * while people decide, it holds no place, so it never keeps the runs behind it waiting.
 * Looked at with back-off, and at once on a `deployment_review` delivery for the run;
 * bounded by `maxWait`. Rejected by its reviewers, the run ends (GitHub fails it): nothing
 * to do. When GitHub cannot say (a missing permission, an outage past the retries), it
 * joins as before: exclusivity never rests on this, only the queue's order.
 */

/** The run whose reviewers are looked at. */
export interface ReviewedRun {
  installation: number;
  repo: Repo;
  runId: string;
  environment: string;
  tag: string;
  wait: Wait;
}

/** How often a run waiting for its reviewers is looked at: from 5 s, doubling to a minute (a review delivery wakes it sooner). */
const REVIEW_FIRST_LOOK_MS = 5_000;
const REVIEW_MAX_LOOK_MS = 60_000;

/** True once the run may join the queue of `resource`; false when it must not (rejected, ended, too long). */
export async function reviewersApproved(
  gate: Gate,
  r: ReviewedRun,
  resource: string,
  arrival: Arrival,
  review: Review,
): Promise<boolean> {
  const { config, github, clock, log } = gate;
  const deadline = clock.now() + config.maxWaitMs;
  let lookMs = REVIEW_FIRST_LOOK_MS;
  let waited = false;
  while (!r.wait.cancel.signal.aborted) {
    let state;
    try {
      state = await github.reviewers(r.installation, r.repo, r.runId, r.environment);
    } catch (error) {
      log(
        `${r.tag}: could not read where its required reviewers stand (${errorMessage(error)}); it joins the queue now`,
      );
      return true;
    }
    if (state === 'none' || state === 'approved') {
      if (waited) log(`${r.tag}: its reviewers approved; it joins the queue of ${resource}`);
      return true;
    }
    if (state === 'rejected') {
      log(`${r.tag}: its reviewers rejected it; it does not join the queue of ${resource}`);
      return false;
    }
    if (!waited) {
      log(
        `${r.tag}: waits for its required reviewers before it joins the queue of ${resource}; it holds no place meanwhile`,
      );
      // It has no place to take yet: the requests found again after it need not wait for it.
      arrival.placed?.();
      waited = true;
    }
    const left = deadline - clock.now();
    if (left <= 0) {
      await review(
        'rejected',
        `lease-gate: its required reviewers did not approve it within the configured maximum wait (${formatDuration(config.maxWaitMs)}); not approved.`,
      );
      return false;
    }
    await napOrReview(gate, r.wait, Math.min(lookMs, left));
    lookMs = Math.min(lookMs * 2, REVIEW_MAX_LOOK_MS);
  }
  return false;
}

/** Sleeps `ms`, or less: until the run ends or a review of it is delivered. */
async function napOrReview(
  { sleep, state }: Pick<Gate, 'sleep' | 'state'>,
  wait: Wait,
  ms: number,
): Promise<void> {
  const nap = new AbortController();
  const wake = () => nap.abort();
  const wakers = state.awaitingReview.get(wait.runKey) ?? new Set<() => void>();
  state.awaitingReview.set(wait.runKey, wakers.add(wake));
  wait.cancel.signal.addEventListener('abort', wake, { once: true });
  try {
    await sleep(ms, nap.signal);
  } finally {
    wait.cancel.signal.removeEventListener('abort', wake);
    wakers.delete(wake);
    if (wakers.size === 0) state.awaitingReview.delete(wait.runKey);
  }
}

/** A `deployment_review` delivery: the run it names, if it waits for its reviewers, looks now. */
export function deploymentReview(state: GateState, delivery: Delivery): void {
  const parsed = deploymentReviewSchema.safeParse(delivery.payload);
  if (!parsed.success) return;
  const key = runKey(parsed.data.repository.full_name, String(parsed.data.workflow_run.id));
  for (const wake of state.awaitingReview.get(key) ?? []) wake();
}
