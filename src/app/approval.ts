import { formatDuration } from '../gate/duration.js';
import type { KeeperStatus } from '../gate/keep.js';
import { errorMessage, LeaseGateError, type CauseOptions } from '../errors.js';
import { untrusted } from '../lease/escape.js';
import type { Held } from '../lease/session.js';
import type { PlaneClient } from '../plane/client.js';
import type { Lease } from '../plane/schema.js';
import type { Clock } from '../plane/time.js';
import type { AppConfig } from './config.js';
import { GitHubError, mayHaveApplied, type GitHubApp, type Repo } from './github.js';

/**
 * Approving a granted run, and keeping its lease for the job to take up. The lease is
 * kept alive from the grant on, through every retry of the approval call, until the
 * take-up grace ends: GitHub failing for longer than a lease lasts must not let it lapse
 * (the next run would be granted and approved, then this run's retry too). Before each
 * attempt the plane is asked whether this run still holds that very lease (same id,
 * same fence); once it does not, or the renewals say it ended, nothing more is sent.
 */

/** Answers a run's rule for the environment it names (gate.ts's `reviewer`). */
export type Review = ((state: 'approved' | 'rejected', comment: string) => Promise<void>) & {
  environment: string;
};

/** A run the app approves or keeps a lease for (run-gate.ts's `Serve`). */
export interface ApprovalTarget {
  tag: string;
  did: string;
  resource: string;
  wait: { cancel: AbortController; why?: 'run-completed' | 'shutdown' };
  installation: number;
  repo: Repo;
  runId: string;
  review: Review;
}

export interface ApproverOptions {
  config: AppConfig;
  github: GitHubApp;
  plane: Pick<PlaneClient, 'status'>;
  clock: Clock;
  log: (line: string) => void;
}

/** The plane no longer shows this run holding the lease it was granted: never approve it. */
export class LeaseGoneError extends LeaseGateError<'lease_revoked'> {
  override name = 'LeaseGoneError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'lease_revoked' });
  }
}

/** Renews `held` until stopped or lost; how long it is wanted is set once the approval is final. */
export function keepAlive(held: Held, signal: AbortSignal, clock: Clock) {
  let until = Infinity;
  const stop = new AbortController();
  const ended = new AbortController();
  const done: Promise<KeeperStatus> = held
    .keep({
      signal: AbortSignal.any([signal, stop.signal]),
      stillWanted: () => clock.now() < until,
    })
    .finally(() => ended.abort());
  return {
    done,
    /** Aborted once the keeper stopped, whatever the reason: an approval in flight must stop too. */
    ended: ended.signal,
    keepFor: (ms: number) => void (until = clock.now() + ms),
    stop: async () => {
      stop.abort();
      return done;
    },
  };
}

/** Is `lease` still this run's, as the plane says now? Throws LeaseGoneError when not (or unknown). */
export async function stillHeld(
  plane: Pick<PlaneClient, 'status'>,
  lease: Lease,
  signal: AbortSignal,
): Promise<void> {
  let now: Lease | null;
  try {
    now = await plane.status(lease.resource, { signal });
  } catch (error) {
    throw new LeaseGoneError(
      `the plane could not say who holds ${lease.resource} (${errorMessage(error)})`,
      { cause: error },
    );
  }
  if (now?.holder === lease.holder && now.id === lease.id && now.fence === lease.fence) return;
  const by = now ? `lease ${now.id} of ${untrusted(now.holder, 300)}` : 'nobody';
  throw new LeaseGoneError(
    `lease ${lease.id} of ${lease.resource} is no longer this run's (the plane shows ${by})`,
  );
}

export type Approver = ReturnType<typeof createApprover>;

export function createApprover(options: ApproverOptions) {
  return {
    /** Approves once the grant is made; `renewal`: this run held the lease before this request. */
    approve: (s: ApprovalTarget, held: Held, renewal: boolean) =>
      approve(options, s, held, renewal),
    /** Keeps an approved run's lease for the take-up grace (from now), then says how it ended. */
    async keepForTakeUp(s: ApprovalTarget, held: Held): Promise<void> {
      const keeper = keepAlive(held, s.wait.cancel.signal, options.clock);
      keeper.keepFor(options.config.takeUpGraceMs);
      await afterApproval(options, s, held, await keeper.done);
    },
  };
}

/** How long an approved run's lease is kept, as the log says it. */
const keptFor = (config: AppConfig) =>
  `kept for the job to take up, at most ${formatDuration(config.takeUpGraceMs)} or until the run ends`;

const fenceOf = (lease: Lease) => (lease.fence === undefined ? 'none' : String(lease.fence));

async function approve(
  options: ApproverOptions,
  s: ApprovalTarget,
  held: Held,
  renewal: boolean,
): Promise<void> {
  const { config, github, clock, log } = options;
  const { lease } = held;
  const fence = fenceOf(lease);
  const comment = `lease-gate: ${s.resource} granted to this run as ${lease.holder}: lease ${lease.id}, fence ${fence}, plane ${config.planeUrl}. The job's lease-gate step takes it up; it lapses if no step has within ${formatDuration(config.takeUpGraceMs)}.`;
  const keeper = keepAlive(held, s.wait.cancel.signal, clock);
  const stop = AbortSignal.any([keeper.ended, s.wait.cancel.signal]);
  try {
    await github.review(
      s.installation,
      s.repo,
      s.runId,
      { environment_name: s.review.environment, state: 'approved', comment },
      { signal: stop, beforeEach: () => stillHeld(options.plane, lease, stop) },
    );
    log(
      `${s.tag}: approved after ${formatDuration(held.waitedMs)}: ${s.resource} lease ${lease.id}, fence ${fence}; ${keptFor(config)}`,
    );
  } catch (error) {
    if (
      !s.wait.cancel.signal.aborted &&
      (error instanceof LeaseGoneError || keeper.ended.aborted)
    ) {
      return lost(log, s, held, keeper, error);
    }
    if (!kept(options, s, error, lease, renewal)) {
      await keeper.stop();
      const released = await held.release();
      log(
        `${s.tag}: approval refused (${errorMessage(error)}); lease ${lease.id} ${released.kind === 'released' ? 'given back' : 'left to lapse'}`,
      );
      return;
    }
  }
  keeper.keepFor(config.takeUpGraceMs);
  await afterApproval(options, s, held, await keeper.done);
}

/** The lease ended before GitHub took the approval: nothing more is sent but a rejection. */
async function lost(
  log: (line: string) => void,
  s: ApprovalTarget,
  held: Pick<Held, 'lease'>,
  keeper: ReturnType<typeof keepAlive>,
  error: unknown,
): Promise<void> {
  const status = await keeper.stop();
  const why =
    error instanceof LeaseGoneError
      ? error.message
      : `lease ${held.lease.id} ended before GitHub answered (${status.lost?.reason ?? 'renewals failed'})`;
  // Nothing is given back: a lease the plane could not show is not known to be gone, and
  // an earlier attempt GitHub applied unheard may have let the job take it up.
  log(`${s.tag}: not approved: ${why}`);
  await s.review(
    'rejected',
    `lease-gate: ${s.resource} was granted to this run, but the lease ended before GitHub took the approval (${why}); not approved. Re-run the job to queue again.`,
  );
}

/** After a failed approval call: is the lease kept (the rule may be approved), or given back? */
function kept(
  { config, log }: ApproverOptions,
  s: ApprovalTarget,
  error: unknown,
  lease: Lease,
  renewal: boolean,
): boolean {
  const fence = fenceOf(lease);
  if (error instanceof GitHubError && error.status === 422) {
    // The rule is decided already: approved (by this app before a restart, by another
    // replica, or by a call GitHub applied and answered 5xx) or rejected. An approved
    // job may be deploying under this lease now: giving it back would let the next run
    // in beside it. A rejected run ends, and the run check gives the lease back then.
    log(
      `${s.tag}: GitHub says the rule is already decided (${errorMessage(error)}); lease ${lease.id}, fence ${fence} ${keptFor(config)}`,
    );
    return true;
  }
  if (mayHaveApplied(error)) {
    // No final answer: GitHub may have approved. Kept; it lapses if no job takes it up.
    log(
      `${s.tag}: the approval may have been applied (${errorMessage(error)}); lease ${lease.id}, fence ${fence} ${keptFor(config)}`,
    );
    return true;
  }
  if (renewal) {
    // A 4xx but 422 on a lease this DID held before the ask (a redelivery after a
    // restart, GitHub answering 404 or 403): the run was approved earlier and its job may
    // deploy under this very lease. Kept, as for 422.
    log(
      `${s.tag}: approval refused (${errorMessage(error)}), but this run held lease ${lease.id} before this request: fence ${fence} ${keptFor(config)}`,
    );
    return true;
  }
  // A 4xx but 422 is a refusal of the call itself, and this ask granted the lease:
  // nothing was approved under it.
  return false;
}

async function afterApproval(
  { log }: ApproverOptions,
  s: ApprovalTarget,
  held: Held,
  kept: KeeperStatus,
): Promise<void> {
  const { lease } = held;
  if (s.wait.why === 'run-completed') {
    // The run is over, post steps included: nobody can hold this lease for it any more.
    const released = await held.release();
    log(
      `${s.tag}: the run completed; ${released.kind === 'released' ? `gave back lease ${lease.id}` : 'nothing left to give back'}`,
    );
    return;
  }
  // A revoked lease nobody took up yet is given back at once: the next run need not
  // wait out the kernel's lock-delay for a job that may never start.
  const gaveBack = kept.lost?.reason === 'revoked' && (await held.release()).kind !== 'failed';
  const how =
    kept.ended?.why === 'not-wanted'
      ? 'the take-up grace ended: the job keeps it alive, or it lapses'
      : kept.lost?.reason === 'revoked'
        ? `an operator revoked it: ${untrusted(kept.lost.message ?? 'no reason given', 300)}; ${gaveBack ? 'gave it back' : 'could not give it back (it lapses)'}, the job's step cannot take it up`
        : kept.lost
          ? `it ended (${kept.lost.reason}): the job gave it back`
          : `stopped (${kept.ended?.why ?? 'unknown'})`;
  log(`${s.tag}: stopped renewing lease ${lease.id}: ${how}`);
}
