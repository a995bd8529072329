import { errorMessage } from '../errors.js';
import { formatDuration } from '../gate/duration.js';
import { parseRepository } from '../plane/did.js';
import { untrusted } from '../lease/escape.js';
import type { Review } from './approval.js';
import { findRule } from './config.js';
import { protectionRuleSchema, runIdFromCallback } from './events.js';
import { reviewer, runDid, runKey, type Arrival, type Gate, type Wait } from './gate.js';
import type { Repo } from './github.js';
import type { Delivery } from './receiver.js';
import { reviewersApproved } from './reviewers.js';
import { serve } from './run-gate.js';

/**
 * The protection rule's core: a `deployment_protection_rule` request takes a place in
 * the resource's queue under the DID the run's step takes up, waits (blocking acquire),
 * approves when granted, and keeps the lease for the take-up grace; a refusal, a
 * revoke or too long a wait rejects with the reason; a run that ends leaves the queue.
 */

/** More runs than this waiting at once are refused: every wait holds a little memory and a request. */
export const MAX_WAITING = 1_000;
/** A kernel keeps a waiter's place for its held ask plus 2 s (kernel/rules/rules.ts); a little more. */
const STALE_PLACE_GRACE_MS = 3_000;

/** A request as read from its delivery. */
interface RuleRequest {
  repository: string;
  repo: Repo;
  runId: string;
  /** As GitHub names it (the review call's), and escaped (for messages). */
  environment: { raw: string; shown: string };
  deploymentId: number;
  installation: number;
  tag: string;
  review: Review;
}

export async function protectionRule(
  gate: Gate,
  delivery: Delivery,
  arrival: Arrival = {},
): Promise<void> {
  if (arrival.recoveredSinceMs === undefined) await gate.state.recovering;
  const request = readRequest(gate, delivery);
  if (!request) return;
  const admitted = await admit(gate, request, arrival);
  if (!admitted) return;
  const { did, resource } = admitted;
  const { active } = gate.state;
  if (active.has(did)) {
    gate.log(`${request.tag}: already waiting as ${did}; this request is a repeat`);
    return;
  }
  const wait: Wait = {
    runKey: runKey(request.repository, request.runId),
    cancel: new AbortController(),
  };
  active.set(did, wait);
  // A request found again at start has waited since GitHub first delivered it.
  const waitedMs =
    arrival.recoveredSinceMs === undefined
      ? 0
      : Math.max(0, gate.wallNow() - arrival.recoveredSinceMs);
  try {
    if (arrival.recoveredSinceMs !== undefined && !(await placesLapsed(gate, request.tag, wait)))
      return;
    const { installation, repo, runId, tag, review } = request;
    const run = { installation, repo, runId, environment: request.environment.raw, tag, wait };
    if (!(await reviewersApproved(gate, run, resource, arrival, review))) return;
    await serve(gate, {
      timeoutMs: Math.max(0, gate.config.maxWaitMs - waitedMs),
      placed: arrival.placed ?? (() => {}),
      tag,
      did,
      resource,
      wait,
      installation,
      repo,
      runId,
      deploymentId: request.deploymentId,
      review,
    });
  } finally {
    active.delete(did);
  }
}

/** The request in `delivery`, or undefined (logged) when it is none the app answers. */
function readRequest(gate: Gate, delivery: Delivery): RuleRequest | undefined {
  const parsed = protectionRuleSchema.safeParse(delivery.payload);
  if (!parsed.success) {
    gate.log(
      `delivery ${delivery.id}: not a deployment_protection_rule payload we can read; ignored`,
    );
    return undefined;
  }
  const event = parsed.data;
  if (event.action !== 'requested') return undefined;
  const name = event.repository.full_name;
  const repo = parseRepository(name)!;
  const runId = runIdFromCallback(event.deployment_callback_url, name);
  const shown = untrusted(event.environment, 255);
  if (!runId) {
    gate.log(`delivery ${delivery.id}: deployment_callback_url names no run of ${name}; ignored`);
    return undefined;
  }
  const tag = `run ${runId} of ${name} (environment ${shown})`;
  const installation = event.installation.id;
  return {
    repository: name,
    repo,
    runId,
    environment: { raw: event.environment, shown },
    deploymentId: event.deployment.id,
    installation,
    tag,
    review: reviewer(gate, installation, repo, runId, event.environment, tag),
  };
}

/**
 * The checks before a request may wait: the installation, the app's rule for it, room to
 * wait, a run still waiting. The DID its run's step takes up, or undefined (answered or logged).
 */
async function admit(
  gate: Gate,
  request: RuleRequest,
  arrival: Arrival,
): Promise<{ did: string; resource: string } | undefined> {
  const { config, github, log } = gate;
  const { repository, installation, tag, review } = request;
  try {
    // A token first: an installation GitHub does not know gets no place in any queue.
    await github.token(installation);
  } catch (error) {
    log(`${tag}: dropped: ${errorMessage(error)}`);
    return undefined;
  }
  const rule = findRule(config.rules, repository, request.environment.raw);
  if (!rule) {
    await review(
      'rejected',
      `lease-gate: no rule in the app's config for ${repository} and environment ${request.environment.shown}; not approved.`,
    );
    return undefined;
  }
  if (gate.state.active.size >= MAX_WAITING) {
    await review(
      'rejected',
      `lease-gate: ${MAX_WAITING} runs are already waiting; try again later.`,
    );
    return undefined;
  }
  const run = await github.getRun(installation, request.repo, request.runId);
  if (run.status === 'completed') {
    log(`${tag}: the run has already completed; nothing to do`);
    return undefined;
  }
  if (arrival.recoveredSinceMs !== undefined && run.status !== 'waiting') {
    // Found again at start: only a run still waiting on a rule has one to answer.
    log(
      `${tag}: found again at start, but the run is ${untrusted(run.status, 40)}: its rule is decided; nothing to do`,
    );
    return undefined;
  }
  const did = runDid(config, request, rule, run.runAttempt);
  return { did, resource: rule.resource };
}

/**
 * A killed process's places in the plane's queue outlive it by one held ask and a
 * grace. Were the first recovered ask to come before they all lapse, a stale place
 * of a later run could stay ahead of an earlier run asking anew: the first order
 * would break. So recovered runs ask only once that long has passed since start.
 */
async function placesLapsed(gate: Gate, tag: string, wait: Wait): Promise<boolean> {
  const staleForMs = gate.plane.requestTimeoutMs + STALE_PLACE_GRACE_MS;
  const left = gate.state.startedAt + staleForMs - gate.clock.now();
  if (left <= 0) return true;
  gate.log(
    `${tag}: still waiting; asks again in ${formatDuration(left)}, once the places a previous process left in the queue have lapsed`,
  );
  await gate.sleep(left, wait.cancel.signal);
  return !wait.cancel.signal.aborted;
}
