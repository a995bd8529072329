import { errorMessage } from '../errors.js';
import { adoptApproved, type ApprovedRun } from './adopt.js';
import { createApprover } from './approval.js';
import { newGateState, track, type Gate, type GatekeeperOptions } from './gate.js';
import { protectionRule } from './protection-rule.js';
import type { Delivery, RecoveredRequest } from './receiver.js';
import { deploymentReview } from './reviewers.js';
import { keepApproved, workflowRun } from './run-gate.js';

export type { GatekeeperOptions };
export { MAX_WAITING } from './protection-rule.js';

/**
 * The protection rule's gatekeeper: it hands each delivery to the piece that answers it
 * (protection-rule.ts a request, run-gate.ts a run that ended, reviewers.ts a review),
 * queues again at start the requests a previous process left pending, and stops. Its
 * pieces share one state (gate.ts), made here.
 */

export function createGatekeeper(options: GatekeeperOptions) {
  const { config, github, clock, log } = options;
  const approver = createApprover({ config, github, plane: options.plane, clock, log });
  const gate: Gate = { ...options, approver, state: newGateState(clock.now()) };
  const { state } = gate;

  async function onDelivery(delivery: Delivery): Promise<void> {
    if (delivery.event === 'deployment_protection_rule') {
      return track(state, protectionRule(gate, delivery));
    }
    if (delivery.event === 'workflow_run') return workflowRun(state, delivery);
    if (delivery.event === 'deployment_review') return deploymentReview(state, delivery);
    if (delivery.event === 'ping') log(`delivery ${delivery.id}: ping from GitHub`);
  }

  return {
    onDelivery,
    recover: (find: () => Promise<RecoveredRequest[]>) => recover(gate, find),
    /** How many runs wait or are kept now. */
    waiting: () => state.active.size,
    /** Leaves every queue (a granted lease is left to the job or to lapse) and waits for the work. */
    async close(): Promise<void> {
      state.shut.abort();
      for (const wait of state.active.values()) {
        wait.why ??= 'shutdown';
        wait.cancel.abort();
      }
      await Promise.allSettled([...state.working]);
      await state.recovering;
    },
  };
}

/**
 * Queues again the requests a previous process left pending, one at a time in their
 * first order (each has its place in the plane's queue before the next asks); live
 * deliveries wait until then. A failure to list is logged: the app serves on.
 */
function recover(gate: Gate, find: () => Promise<RecoveredRequest[]>): Promise<void> {
  const { log, state } = gate;
  const done = (async () => {
    let found: RecoveredRequest[];
    try {
      found = await find();
    } catch (error) {
      log(
        `recovery: could not read the App's recent deliveries: ${errorMessage(error)}; pending runs wait for a redelivery`,
      );
      return;
    }
    log(
      `recovery: ${found.length} protection-rule request(s) of the last deliveries to check again`,
    );
    const { config, github, plane } = gate;
    const keep = (run: ApprovedRun) => keepApproved(gate, run);
    found = await adoptApproved(found, {
      config,
      github,
      plane,
      log,
      keep,
      signal: state.shut.signal,
    });
    for (const request of found) {
      if (state.shut.signal.aborted) return;
      let placed!: () => void;
      const isPlaced = new Promise<void>((resolve) => (placed = resolve));
      const work = track(
        state,
        protectionRule(gate, request.delivery, {
          recoveredSinceMs: request.firstDeliveredAtMs,
          placed,
        }),
      ).catch((error: unknown) =>
        log(`recovery: delivery ${request.delivery.id} failed: ${errorMessage(error)}`),
      );
      await Promise.race([isPlaced, work]);
    }
  })();
  state.recovering = done;
  return done;
}
