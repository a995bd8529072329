import { formatDuration } from '../gate/duration.js';
import { LeaseRefusedError, LeaseRevokedError, type HeldEvent } from '../gate/wait.js';
import { shortHolder } from '../lease/did.js';
import { parseRepository } from '../plane/did.js';
import { errorMessage } from '../errors.js';
import { untrusted } from '../lease/escape.js';
import { openSession, type Held } from '../lease/session.js';
import { ANY_JOB, appDid } from '../lease/take-up.js';
import type { PlaneClient } from '../plane/client.js';
import { KeyRefusedError } from '../plane/errors.js';
import type { Lease } from '../plane/schema.js';
import type { Clock, Sleep } from '../plane/time.js';
import { findRule, type AppConfig } from './config.js';
import {
  deploymentReviewSchema,
  protectionRuleSchema,
  runIdFromCallback,
  workflowRunSchema,
} from './events.js';
import { adoptApproved, type ApprovedRun } from './adopt.js';
import { createApprover } from './approval.js';
import type { GitHubApp, Repo } from './github.js';
import type { Delivery, RecoveredRequest } from './receiver.js';

/**
 * The protection rule's core: a `deployment_protection_rule` request takes a place in
 * the resource's queue under the DID the run's step takes up, waits (blocking acquire),
 * approves when granted, and keeps the lease for the take-up grace; a refusal, a
 * revoke or too long a wait rejects with the reason; a run that ends leaves the queue.
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

/** More runs than this waiting at once are refused: every wait holds a little memory and a request. */
export const MAX_WAITING = 1_000;
const PROGRESS_EVERY_MS = 60_000;
/** A kernel keeps a waiter's place for its held ask plus 2 s (kernel/rules/rules.ts); a little more. */
const STALE_PLACE_GRACE_MS = 3_000;
/** How often a run waiting for its reviewers is looked at: from 5 s, doubling to a minute (a review delivery wakes it sooner). */
const REVIEW_FIRST_LOOK_MS = 5_000;
const REVIEW_MAX_LOOK_MS = 60_000;

/** A request a previous process of the app left pending, found again at start (recovery.ts). */
/** How a request came: a delivery now, or found again at start. */
interface Arrival {
  recoveredSinceMs?: number;
  /** Called once the request has its place in the plane's queue (or has none to take). */
  placed?: () => void;
}

interface Wait {
  runKey: string;
  cancel: AbortController;
  why?: 'run-completed' | 'shutdown';
}

export function createGatekeeper(options: GatekeeperOptions) {
  const { config, github, clock, log } = options;
  const active = new Map<string, Wait>();
  /** Runs waiting for their required reviewers, by run: a `deployment_review` delivery wakes them. */
  const awaitingReview = new Map<string, Set<() => void>>();
  const working = new Set<Promise<void>>();
  /** Live deliveries queue after the requests found again at start: the first order holds. */
  let recovering: Promise<void> = Promise.resolve();
  /** Aborted when the app stops. */
  const shut = new AbortController();
  const startedAt = clock.now();
  const approver = createApprover({ config, github, plane: options.plane, clock, log });
  /**
   * A killed process's places in the plane's queue outlive it by one held ask and a
   * grace. Were the first recovered ask to come before they all lapse, a stale place
   * of a later run could stay ahead of an earlier run asking anew: the first order
   * would break. So recovered runs ask only once that long has passed since start.
   */
  const staleForMs = options.plane.requestTimeoutMs + STALE_PLACE_GRACE_MS;
  async function placesLapsed(tag: string, wait: Wait): Promise<boolean> {
    const left = startedAt + staleForMs - clock.now();
    if (left <= 0) return true;
    log(
      `${tag}: still waiting; asks again in ${formatDuration(left)}, once the places a previous process left in the queue have lapsed`,
    );
    await options.sleep(left, wait.cancel.signal);
    return !wait.cancel.signal.aborted;
  }

  async function onDelivery(delivery: Delivery): Promise<void> {
    if (delivery.event === 'deployment_protection_rule') return track(protectionRule(delivery));
    if (delivery.event === 'workflow_run') return workflowRun(delivery);
    if (delivery.event === 'deployment_review') return deploymentReview(delivery);
    if (delivery.event === 'ping') log(`delivery ${delivery.id}: ping from GitHub`);
  }

  function track(work: Promise<void>): Promise<void> {
    working.add(work);
    return work.finally(() => working.delete(work));
  }

  async function protectionRule(delivery: Delivery, arrival: Arrival = {}): Promise<void> {
    if (arrival.recoveredSinceMs === undefined) await recovering;
    const parsed = protectionRuleSchema.safeParse(delivery.payload);
    if (!parsed.success) {
      log(`delivery ${delivery.id}: not a deployment_protection_rule payload we can read; ignored`);
      return;
    }
    const event = parsed.data;
    if (event.action !== 'requested') return;
    const name = event.repository.full_name;
    const repo = parseRepository(name)!;
    const runId = runIdFromCallback(event.deployment_callback_url, name);
    const environment = untrusted(event.environment, 255);
    if (!runId) {
      log(`delivery ${delivery.id}: deployment_callback_url names no run of ${name}; ignored`);
      return;
    }
    const tag = `run ${runId} of ${name} (environment ${environment})`;
    const installation = event.installation.id;
    const review = reviewer(installation, repo, runId, event.environment, tag);
    try {
      // A token first: an installation GitHub does not know gets no place in any queue.
      await github.token(installation);
    } catch (error) {
      log(`${tag}: dropped: ${errorMessage(error)}`);
      return;
    }
    const rule = findRule(config.rules, name, event.environment);
    if (!rule) {
      return review(
        'rejected',
        `lease-gate: no rule in the app's config for ${name} and environment ${environment}; not approved.`,
      );
    }
    if (active.size >= MAX_WAITING) {
      return review(
        'rejected',
        `lease-gate: ${MAX_WAITING} runs are already waiting; try again later.`,
      );
    }
    const run = await github.getRun(installation, repo, runId);
    if (run.status === 'completed') {
      log(`${tag}: the run has already completed; nothing to do`);
      return;
    }
    if (arrival.recoveredSinceMs !== undefined && run.status !== 'waiting') {
      // Found again at start: only a run still waiting on a rule has one to answer.
      log(
        `${tag}: found again at start, but the run is ${untrusted(run.status, 40)}: its rule is decided; nothing to do`,
      );
      return;
    }
    const did = appDid(
      {
        serverUrl: config.githubServerUrl,
        repository: name,
        runId,
        runAttempt: String(run.runAttempt),
        job: rule.job ?? ANY_JOB,
      },
      event.deployment.id,
    );
    if (active.has(did)) {
      log(`${tag}: already waiting as ${did}; this request is a repeat`);
      return;
    }
    const wait: Wait = { runKey: runKey(name, runId), cancel: new AbortController() };
    active.set(did, wait);
    // A request found again at start has waited since GitHub first delivered it.
    const waitedMs =
      arrival.recoveredSinceMs === undefined
        ? 0
        : Math.max(0, options.wallNow() - arrival.recoveredSinceMs);
    try {
      if (arrival.recoveredSinceMs !== undefined && !(await placesLapsed(tag, wait))) return;
      const reviewers = { installation, repo, runId, environment: event.environment, tag, wait };
      if (!(await reviewersApproved(reviewers, rule.resource, arrival, review))) return;
      await serve({
        timeoutMs: Math.max(0, config.maxWaitMs - waitedMs),
        placed: arrival.placed ?? (() => {}),
        tag,
        did,
        resource: rule.resource,
        wait,
        installation,
        repo,
        runId,
        deploymentId: event.deployment.id,
        review,
      });
    } finally {
      active.delete(did);
    }
  }

  interface Serve {
    timeoutMs: number;
    placed: () => void;
    tag: string;
    did: string;
    resource: string;
    wait: Wait;
    installation: number;
    repo: Repo;
    runId: string;
    deploymentId: number;
    review: ReturnType<typeof reviewer>;
  }

  const sessionFor = (did: string, resource: string) =>
    openSession({
      apiUrl: config.planeUrl,
      key: config.planeKey,
      resource,
      actorDid: did,
      client: options.plane,
      clock,
      sleep: options.sleep,
      random: options.random,
      wallNow: options.wallNow,
    });

  /** A run approved before a restart whose DID still holds its lease (adopt.ts): kept as after an approval. */
  function keepApproved(run: ApprovedRun): void {
    if (active.has(run.did)) return;
    const wait: Wait = { runKey: runKey(run.repository, run.runId), cancel: new AbortController() };
    active.set(run.did, wait);
    const review = reviewer(run.installation, run.repo, run.runId, run.environment, run.tag);
    const s = { ...run, wait, review };
    const watching = new AbortController();
    const watch = watchRun(s, watching.signal);
    void track(
      approver
        .keepForTakeUp(s, sessionFor(run.did, run.resource).held(run.lease))
        .finally(async () => {
          watching.abort();
          await watch;
          active.delete(run.did);
        }),
    );
  }

  async function serve(s: Serve): Promise<void> {
    const session = sessionFor(s.did, s.resource);
    log(`${s.tag}: queued for ${s.resource} as ${s.did}`);
    // Before the ask: a lease this DID holds already is one an approved job may deploy under.
    const before = await heldBefore(session.client, s);
    const watching = new AbortController();
    const watch = watchRun(s, watching.signal);
    try {
      let result;
      try {
        const report = heldReporter(s);
        result = await session.acquire({
          timeoutMs: s.timeoutMs,
          signal: s.wait.cancel.signal,
          onHeld: (event) => {
            s.placed();
            return report(event);
          },
        });
        s.placed();
      } catch (error) {
        s.placed();
        if (error instanceof LeaseRevokedError) {
          return await s.review(
            'rejected',
            `lease-gate: ${s.resource} is revoked for this run: ${error.operatorMessage}`,
          );
        }
        const why =
          error instanceof LeaseRefusedError
            ? `the plane refused ${s.resource}: ${error.reason}`
            : error instanceof KeyRefusedError && error.status === 403
              ? // The kernel's policy or a scoped key: it names what the key may act as.
                `the plane does not let this run have ${s.resource}: ${errorMessage(error)}`
              : `the plane failed: ${errorMessage(error)}`;
        return await s.review('rejected', `lease-gate: ${why}; not approved.`);
      }
      if (result.outcome === 'cancelled') {
        log(
          `${s.tag}: ${s.wait.why === 'shutdown' ? 'the app is stopping' : 'the run ended'} while it waited; left the queue of ${s.resource}`,
        );
        return;
      }
      if (result.outcome === 'timeout') {
        return await s.review(
          'rejected',
          `lease-gate: waited longer than the configured maximum (${formatDuration(config.maxWaitMs)}) for ${s.resource}, still ${result.reserved ? 'reserved for' : 'held by'} ${shortHolder(result.holder)}; not approved.`,
        );
      }
      if (result.outcome === 'superseded') {
        // The app asks in FIFO order, so only a plane that supersedes on its own gets here.
        return await s.review(
          'rejected',
          `lease-gate: a newer run took this run's place in the queue of ${s.resource}; not approved.`,
        );
      }
      await approver.approve(s, result.held, renews(before, result.held));
    } finally {
      watching.abort();
      await watch;
    }
  }

  /**
   * What the plane says of the resource before this ask: the lease when this run's DID holds
   * it (after a restart, a redelivery: the run was approved and its job may hold it), none
   * when another or nobody does, `unknown` when the plane could not say.
   */
  async function heldBefore(client: PlaneClient, s: Serve): Promise<Lease | 'unknown' | undefined> {
    try {
      const lease = await client.status(s.resource, { signal: s.wait.cancel.signal });
      return lease?.holder === s.did ? lease : undefined;
    } catch (error) {
      log(`${s.tag}: could not ask the plane who holds ${s.resource} (${errorMessage(error)})`);
      return 'unknown';
    }
  }

  /**
   * True unless this ask newly granted the lease: the kernel keeps a lease's id on a renewal,
   * so the same id as before is the DID's own lease renewed, and an unknown before counts as
   * one (giving back a lease a job may deploy under is the worse mistake).
   */
  function renews(before: Lease | 'unknown' | undefined, held: Held): boolean {
    return before === 'unknown' || before?.id === held.lease.id;
  }

  function heldReporter(s: Serve) {
    let lastLineAt = -Infinity;
    return async (event: HeldEvent) => {
      const by = `${event.reserved ? 'reserved for' : 'held by'} ${shortHolder(event.holder)}`;
      if (!event.holderChanged && event.elapsedMs - lastLineAt < PROGRESS_EVERY_MS) return;
      lastLineAt = event.elapsedMs;
      log(
        `${s.tag}: waiting for ${s.resource}: ${untrusted(by, 300)}; waited ${formatDuration(event.elapsedMs)}`,
      );
      if (event.holderChanged && config.deploymentStatus) {
        await github
          .deploymentStatus(
            s.installation,
            s.repo,
            s.deploymentId,
            `lease-gate: waiting for ${s.resource}, ${by}`,
          )
          .catch((error: unknown) =>
            log(`${s.tag}: could not post the waiting status: ${errorMessage(error)}`),
          );
      }
    };
  }

  /** A bounded check of the run's status while it waits or is kept: a missed event must not keep a place. */
  async function watchRun(
    s: Pick<Serve, 'installation' | 'repo' | 'runId' | 'tag' | 'wait'>,
    stop: AbortSignal,
  ): Promise<void> {
    while (!stop.aborted) {
      try {
        await options.sleep(config.runCheckEveryMs, stop);
      } catch {
        return;
      }
      if (stop.aborted) return;
      try {
        const run = await github.getRun(s.installation, s.repo, s.runId);
        if (run.status === 'completed') return endRun(s.wait);
      } catch (error) {
        log(`${s.tag}: could not check the run's status: ${errorMessage(error)}`);
      }
    }
  }

  function endRun(wait: Wait): void {
    if (wait.why) return;
    wait.why = 'run-completed';
    wait.cancel.abort();
  }

  /**
   * A run whose environment requires reviewers joins the queue only once they approved it:
   * while people decide, it holds no place, so it never keeps the runs behind it waiting.
   * Looked at with back-off, and at once on a `deployment_review` delivery for the run;
   * bounded by `maxWait`. Rejected by its reviewers, the run ends (GitHub fails it): nothing
   * to do. When GitHub cannot say (a missing permission, an outage past the retries), it
   * joins as before: exclusivity never rests on this, only the queue's order.
   */
  async function reviewersApproved(
    r: {
      installation: number;
      repo: Repo;
      runId: string;
      environment: string;
      tag: string;
      wait: Wait;
    },
    resource: string,
    arrival: Arrival,
    review: ReturnType<typeof reviewer>,
  ): Promise<boolean> {
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
      await napOrReview(r.wait, Math.min(lookMs, left));
      lookMs = Math.min(lookMs * 2, REVIEW_MAX_LOOK_MS);
    }
    return false;
  }

  /** Sleeps `ms`, or less: until the run ends or a review of it is delivered. */
  async function napOrReview(wait: Wait, ms: number): Promise<void> {
    const nap = new AbortController();
    const wake = () => nap.abort();
    const wakers = awaitingReview.get(wait.runKey) ?? new Set<() => void>();
    awaitingReview.set(wait.runKey, wakers.add(wake));
    wait.cancel.signal.addEventListener('abort', wake, { once: true });
    try {
      await options.sleep(ms, nap.signal);
    } finally {
      wait.cancel.signal.removeEventListener('abort', wake);
      wakers.delete(wake);
      if (wakers.size === 0) awaitingReview.delete(wait.runKey);
    }
  }

  function deploymentReview(delivery: Delivery): void {
    const parsed = deploymentReviewSchema.safeParse(delivery.payload);
    if (!parsed.success) return;
    const key = runKey(parsed.data.repository.full_name, String(parsed.data.workflow_run.id));
    for (const wake of awaitingReview.get(key) ?? []) wake();
  }

  async function workflowRun(delivery: Delivery): Promise<void> {
    const parsed = workflowRunSchema.safeParse(delivery.payload);
    if (!parsed.success || parsed.data.action !== 'completed') return;
    const key = runKey(parsed.data.repository.full_name, String(parsed.data.workflow_run.id));
    for (const wait of active.values()) if (wait.runKey === key) endRun(wait);
  }

  function reviewer(
    installation: number,
    repo: Repo,
    runId: string,
    environment: string,
    tag: string,
  ) {
    const review = async (state: 'approved' | 'rejected', comment: string) => {
      log(`${tag}: ${state}: ${comment}`);
      await github
        .review(installation, repo, runId, {
          environment_name: environment,
          state,
          comment: comment.slice(0, 1_000),
        })
        .catch((error: unknown) =>
          log(`${tag}: could not send '${state}': ${errorMessage(error)}`),
        );
    };
    return Object.assign(review, { environment });
  }

  /**
   * Queues again the requests a previous process left pending, one at a time in their
   * first order (each has its place in the plane's queue before the next asks); live
   * deliveries wait until then. A failure to list is logged: the app serves on.
   */
  function recover(find: () => Promise<RecoveredRequest[]>): Promise<void> {
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
      const adopt = { config, github, plane: options.plane, log, keep: keepApproved };
      found = await adoptApproved(found, { ...adopt, signal: shut.signal });
      for (const request of found) {
        if (shut.signal.aborted) return;
        let placed!: () => void;
        const isPlaced = new Promise<void>((resolve) => (placed = resolve));
        const work = track(
          protectionRule(request.delivery, {
            recoveredSinceMs: request.firstDeliveredAtMs,
            placed,
          }),
        ).catch((error: unknown) =>
          log(`recovery: delivery ${request.delivery.id} failed: ${errorMessage(error)}`),
        );
        await Promise.race([isPlaced, work]);
      }
    })();
    recovering = done;
    return done;
  }

  return {
    onDelivery,
    recover,
    /** How many runs wait or are kept now. */
    waiting: () => active.size,
    /** Leaves every queue (a granted lease is left to the job or to lapse) and waits for the work. */
    async close(): Promise<void> {
      shut.abort();
      for (const wait of active.values()) {
        wait.why ??= 'shutdown';
        wait.cancel.abort();
      }
      await Promise.allSettled([...working]);
      await recovering;
    },
  };
}

const runKey = (repository: string, runId: string) => `${repository.toLowerCase()}#${runId}`;
