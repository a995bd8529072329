import { GitHubError, parseJson } from '../github/rest.js';
import { approvalsSchema, environmentSchema, runSchema } from './events.js';
import type { AttemptControls, GitHubCall } from './github-transport.js';

/** The App's calls about one run: its status, its reviewers, the rule's answer, a deployment status. */

export interface Repo {
  owner: string;
  repo: string;
}

export interface RunInfo {
  status: string;
  runAttempt: number;
}

/** The run and review calls; GitHubApp (github.ts) has them among its own. */
export interface RunCalls {
  getRun(installationId: number, repo: Repo, runId: string): Promise<RunInfo>;
  /**
   * Where the environment's required reviewers stand for this run: `none` (it requires
   * none), `waiting`, `approved` or `rejected` (the run's latest review of it).
   */
  reviewers(
    installationId: number,
    repo: Repo,
    runId: string,
    environment: string,
  ): Promise<'none' | 'waiting' | 'approved' | 'rejected'>;
  /**
   * Approves or rejects the run's pending protection rule for one environment. `attempt`:
   * `beforeEach` runs before every attempt (the first and each retry) and stops the call by
   * throwing; `signal` stops it between attempts and cuts the one in flight.
   */
  review(
    installationId: number,
    repo: Repo,
    runId: string,
    body: { environment_name: string; state: 'approved' | 'rejected'; comment: string },
    attempt?: AttemptControls,
  ): Promise<void>;
  /** A deployment status while the run waits (what GitHub shows in the environment's list). */
  deploymentStatus(
    installationId: number,
    repo: Repo,
    deploymentId: number,
    description: string,
  ): Promise<void>;
}

/** The run calls over `call` (as the installation, retried like every call). */
export function runCalls(call: GitHubCall): RunCalls {
  return {
    async getRun(installationId, repo, runId) {
      const answer = await call('GET', installationId, `${repoPath(repo)}/actions/runs/${runId}`);
      // The REST run has the webhook's run shape: one schema for both.
      const run = runSchema.safeParse(parseJson(answer.text));
      const attempt = run.success ? (run.data.run_attempt ?? 1) : 0;
      if (!run.success || attempt > 999_999) {
        throw new GitHubError(`run ${runId}: GitHub's answer has no status or run_attempt`, {
          status: answer.status,
        });
      }
      return { status: run.data.status, runAttempt: attempt };
    },
    reviewers: (installationId, repo, runId, environment) =>
      reviewers(call, installationId, repo, runId, environment),
    async review(installationId, repo, runId, body, attempt) {
      await call(
        'POST',
        installationId,
        `${repoPath(repo)}/actions/runs/${runId}/deployment_protection_rule`,
        body,
        attempt,
      );
    },
    async deploymentStatus(installationId, repo, deploymentId, description) {
      await call('POST', installationId, `${repoPath(repo)}/deployments/${deploymentId}/statuses`, {
        state: 'queued',
        description: description.slice(0, 140),
      });
    },
  };
}

async function reviewers(
  call: GitHubCall,
  installationId: number,
  repo: Repo,
  runId: string,
  environment: string,
): Promise<'none' | 'waiting' | 'approved' | 'rejected'> {
  const path = `${repoPath(repo)}/environments/${encodeURIComponent(environment)}`;
  const env = environmentSchema.safeParse(
    parseJson((await call('GET', installationId, path)).text),
  );
  if (!env.success)
    throw new GitHubError(`environment ${environment}: GitHub's answer has no protection_rules`, {
      status: 200,
    });
  if (!env.data.protection_rules?.some((r) => r.type === 'required_reviewers')) return 'none';
  const answer = await call(
    'GET',
    installationId,
    `${repoPath(repo)}/actions/runs/${runId}/approvals`,
  );
  const reviews = approvalsSchema.safeParse(parseJson(answer.text));
  if (!reviews.success)
    throw new GitHubError(`run ${runId}: GitHub's approvals answer is not a list of reviews`, {
      status: 200,
    });
  // Newest last, as GitHub lists them: the latest review of this environment decides.
  let state: 'waiting' | 'approved' | 'rejected' = 'waiting';
  for (const review of reviews.data) {
    if (!review.environments.some((e) => e.name === environment)) continue;
    if (review.state === 'approved' || review.state === 'rejected') state = review.state;
  }
  return state;
}

const repoPath = (repo: Repo) =>
  `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}`;
