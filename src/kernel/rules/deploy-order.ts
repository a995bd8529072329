import type { Deploy, QueueMode } from '../../plane/deploy.js';
import type { RepositoryDeploys, SupersededMark } from './state.js';

/**
 * The rules of deploy order, pure (no I/O), called from `decide`:
 *
 * - **Superseding.** A waiter that asked with `queue: 'newest'` leaves the
 *   queue when a newer run of its lane (same repository, workflow and ref)
 *   starts waiting for the same resource; one that arrives while a newer run
 *   of its lane already waits is turned away at once. "Newer" is a strictly
 *   higher run number: GitHub numbers a workflow's runs in the order they
 *   were triggered, whereas the time a run reaches the gate depends on
 *   runners, earlier jobs and retries, so a clock would let a slow newer run
 *   be pushed out by an older one. A rerun keeps its number (a higher
 *   attempt), so it never supersedes nor is superseded by its own run. The
 *   newer run joins at the back: lanes stay FIFO among themselves, and a
 *   stream of pushes to one lane can only shorten another lane's wait.
 *   A holder is never superseded.
 * - **The last grant per repository.** Each grant answers the deploy of the
 *   grant before it on this resource from the same repository (`previous`),
 *   so the gate can refuse to roll back. A holder that gives the lease back
 *   as outdated (it did not deploy) restores the one before, so a skipped
 *   old run never becomes the commit later runs are compared with.
 */

/** At most this many repositories' last grants are kept per resource (the oldest go). */
export const MAX_REPOSITORIES = 32;
/** The release reason of a holder that found itself outdated and did not deploy. */
export const OUTDATED_REASON = 'outdated';

export interface LaneWaiter {
  actorDid: string;
  deploy?: Deploy | undefined;
  queue?: QueueMode | undefined;
}

/** A waiter that was superseded: told so (with `by`) while it keeps asking. */
export type { RepositoryDeploys, SupersededMark } from './state.js';

const laneOf = (d: Deploy | undefined) =>
  d?.repository !== undefined &&
  d.workflow !== undefined &&
  d.ref !== undefined &&
  d.runNumber !== undefined
    ? { lane: JSON.stringify([d.repository, d.workflow, d.ref]), run: d.runNumber }
    : undefined;

/** How a superseded run is told who took its place: the newer run's URL, else its number. */
export const describeRun = (d: Deploy): string =>
  d.runUrl ?? `run ${d.runNumber} of ${d.workflow} on ${d.ref} in ${d.repository}`;

/**
 * A run joins the queue: the waiters of its lane that asked to step aside and
 * are older leave it (marked), and the joiner itself is turned away when it
 * asked to step aside and a newer run of its lane already waits.
 */
export function supersede<W extends LaneWaiter>(
  queue: readonly W[],
  joiner: LaneWaiter,
  untilMs: number,
): { queue: W[]; marks: SupersededMark[]; joinerBy?: string } {
  const mine = laneOf(joiner.deploy);
  if (!mine) return { queue: [...queue], marks: [] };
  const marks: SupersededMark[] = [];
  let joinerBy: string | undefined;
  const kept = queue.filter((w) => {
    const theirs = laneOf(w.deploy);
    if (!theirs || theirs.lane !== mine.lane || w.actorDid === joiner.actorDid) return true;
    if (theirs.run < mine.run && w.queue === 'newest') {
      marks.push({ actorDid: w.actorDid, by: describeRun(joiner.deploy!), untilMs });
      return false;
    }
    if (theirs.run > mine.run && joiner.queue === 'newest') joinerBy ??= describeRun(w.deploy!);
    return true;
  });
  if (joinerBy !== undefined) marks.push({ actorDid: joiner.actorDid, by: joinerBy, untilMs });
  return { queue: kept, marks, ...(joinerBy !== undefined ? { joinerBy } : {}) };
}

/** The grant before this one from the same repository, and the list with this grant as live. */
export function recordGrant(
  deploys: readonly RepositoryDeploys[] | undefined,
  deploy: Deploy | undefined,
): { previous?: Deploy; deploys: RepositoryDeploys[] | undefined } {
  const repository = deploy?.repository;
  if (!deploy || repository === undefined) return { deploys: deploys && [...deploys] };
  const list = deploys ?? [];
  const found = list.find((d) => d.repository === repository);
  const rest = list.filter((d) => d !== found);
  const next: RepositoryDeploys = { repository, live: deploy };
  if (found) next.before = found.live;
  // Most recent first, bounded: a resource shared by many repositories keeps the latest ones.
  return {
    ...(found ? { previous: found.live } : {}),
    deploys: [next, ...rest].slice(0, MAX_REPOSITORIES),
  };
}

/**
 * A holder gave the lease back as outdated: the grant it made live did not
 * deploy, so the repository's live grant is the one before it again.
 */
export function undoGrant(
  deploys: readonly RepositoryDeploys[] | undefined,
  deploy: Deploy | undefined,
): RepositoryDeploys[] | undefined {
  if (!deploys || deploy?.repository === undefined) return deploys && [...deploys];
  const out: RepositoryDeploys[] = [];
  for (const d of deploys) {
    if (d.repository !== deploy.repository || !sameDeploy(d.live, deploy)) out.push(d);
    else if (d.before) out.push({ repository: d.repository, live: d.before });
  }
  return out.length ? out : undefined;
}

/** Field by field: a state read back from jsonb or a ledger line has its keys in another order. */
const sameDeploy = (a: Deploy, b: Deploy) =>
  (Object.keys(a) as Array<keyof Deploy>).every((k) => a[k] === b[k]) &&
  Object.keys(a).length === Object.keys(b).length;
