import { errorMessage } from '../errors.js';
import { ANY_JOB, appDid } from '../lease/take-up.js';
import type { PlaneClient } from '../plane/client.js';
import type { Clock, Sleep } from '../plane/time.js';
import type { Approver, Review } from './approval.js';
import type { AppConfig, Rule } from './config.js';
import type { GitHubApp, Repo } from './github.js';

/**
 * What the gatekeeper's pieces share (gatekeeper.ts dispatches, protection-rule.ts admits a
 * request, reviewers.ts waits for its reviewers, run-gate.ts waits for its lease): the
 * options it was made with, its approver, and its one mutable state, handed to each
 * explicitly so that what a piece may change is plain from its parameters.
 */

export interface GatekeeperOptions {
  config: AppConfig;
  github: GitHubApp;
  plane: PlaneClient;
  log: (line: string) => void;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  wallNow: () => number;
}

/** How a request came: a delivery now, or found again at start. */
export interface Arrival {
  /** A request a previous process of the app left pending, found again at start (recovery.ts). */
  recoveredSinceMs?: number;
  /** Called once the request has its place in the plane's queue (or has none to take). */
  placed?: () => void;
}

/** One run waiting or kept, under one DID. */
export interface Wait {
  runKey: string;
  cancel: AbortController;
  why?: 'run-completed' | 'shutdown';
}

/** The gatekeeper's mutable state. */
export interface GateState {
  /** The runs waiting or kept, by DID. */
  active: Map<string, Wait>;
  /** Runs waiting for their required reviewers, by run: a `deployment_review` delivery wakes them. */
  awaitingReview: Map<string, Set<() => void>>;
  /** The work under way, awaited when the app stops. */
  working: Set<Promise<void>>;
  /** Live deliveries queue after the requests found again at start: the first order holds. */
  recovering: Promise<void>;
  /** Aborted when the app stops. */
  shut: AbortController;
  startedAt: number;
}

/** The gatekeeper as its pieces see it: its options, its approver, its state. */
export interface Gate extends GatekeeperOptions {
  approver: Approver;
  state: GateState;
}

export function newGateState(startedAt: number): GateState {
  return {
    active: new Map(),
    awaitingReview: new Map(),
    working: new Set(),
    recovering: Promise.resolve(),
    shut: new AbortController(),
    startedAt,
  };
}

/** Counts `work` as under way until it settles (close waits for it). */
export function track(state: GateState, work: Promise<void>): Promise<void> {
  state.working.add(work);
  return work.finally(() => state.working.delete(work));
}

export const runKey = (repository: string, runId: string) => `${repository.toLowerCase()}#${runId}`;

/** The run is over: its wait ends (once; a shutdown already under way keeps its reason). */
export function endRun(wait: Wait): void {
  if (wait.why) return;
  wait.why = 'run-completed';
  wait.cancel.abort();
}

/** The DID a run's lease-gate step takes up under `rule` (lease/take-up.ts): the app queues as it. */
export function runDid(
  config: Pick<AppConfig, 'githubServerUrl'>,
  run: { repository: string; runId: string; deploymentId: number },
  rule: Pick<Rule, 'job'>,
  runAttempt: number,
): string {
  return appDid(
    {
      serverUrl: config.githubServerUrl,
      repository: run.repository,
      runId: run.runId,
      runAttempt: String(runAttempt),
      job: rule.job ?? ANY_JOB,
    },
    run.deploymentId,
  );
}

/** The one call that answers a run's rule for `environment`, logged; a failure to send is logged too. */
export function reviewer(
  { github, log }: Pick<Gate, 'github' | 'log'>,
  installation: number,
  repo: Repo,
  runId: string,
  environment: string,
  tag: string,
): Review {
  const review = async (state: 'approved' | 'rejected', comment: string) => {
    log(`${tag}: ${state}: ${comment}`);
    await github
      .review(installation, repo, runId, {
        environment_name: environment,
        state,
        comment: comment.slice(0, 1_000),
      })
      .catch((error: unknown) => log(`${tag}: could not send '${state}': ${errorMessage(error)}`));
  };
  return Object.assign(review, { environment });
}
