import { didSegment, parseRunDid } from '../plane/did.js';
import type { RunContext } from './did.js';

/**
 * Take-up: the protection-rule app (`lease-gate app`) queues a job before it has a
 * runner, under a DID of the job's own run, and approves the job once the lease is
 * granted. The job's step cannot know the app's DID in advance (its own DID ends in a
 * random nonce, and GitHub's event does not name the job), so the step takes up a
 * lease held by a DID of its own run and attempt that ends in this marker: the app's.
 *   …:runs:<run>:attempts:<n>:jobs:<job or %2A>:protection-rule-<deployment id>
 */
export const APP_NONCE_PREFIX = 'protection-rule-';
/** The job segment when the app's rule does not name the job: `*`, never a job id. */
export const ANY_JOB = '*';

/** The DID the app queues a run's deployment under (the action's encoder). */
export function appDid(run: RunContext, deploymentId: number): string {
  const host = new URL(run.serverUrl).host;
  const [owner = '', repo = ''] = run.repository.split('/');
  const parts = [didSegment(host), didSegment(owner), didSegment(repo), 'actions', 'runs'];
  parts.push(didSegment(run.runId), 'attempts', didSegment(run.runAttempt));
  parts.push('jobs', didSegment(run.job), `${APP_NONCE_PREFIX}${deploymentId}`);
  return `did:web:${parts.join(':')}`;
}

/**
 * May the step whose DID is `ownDid` take up a lease held by `holder`? Only when
 * both are run DIDs of the same host, repository, run and attempt, the holder's
 * job is this job (or any job), and the holder's nonce is the app's.
 */
export function mayTakeUp(ownDid: string, holder: string): boolean {
  const own = parseRunDid(ownDid);
  const theirs = parseRunDid(holder);
  if (!own || !theirs || ownDid === holder) return false;
  const same =
    own.host === theirs.host &&
    own.repository === theirs.repository &&
    own.runId === theirs.runId &&
    own.attempt === theirs.attempt;
  const [ownJob] = ownDid.split(':').slice(-2);
  const [job, nonce = ''] = holder.split(':').slice(-2);
  const jobOk = job === ownJob || job === didSegment(ANY_JOB);
  return same && jobOk && new RegExp(`^${APP_NONCE_PREFIX}[1-9]\\d{0,19}$`).test(nonce);
}
