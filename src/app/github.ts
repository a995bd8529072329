import { createAppAuth } from '@octokit/auth-app';
import { request as octokitRequest } from '@octokit/request';
import type { HttpAnswer, HttpClient } from '../http/client.js';
import { fetchOver } from '../http/fetch.js';
import { causeText } from '../errors.js';
import { HttpError } from '../http/errors.js';
import { GitHubError, answerMessage, parseJson, restHeaders, retryWait } from '../github/rest.js';
import { untrusted } from '../lease/escape.js';
import { approvalsSchema, environmentSchema, runSchema } from './events.js';
import { hookDeliveries, nextCursor, type HookDelivery } from './hook-deliveries.js';
import { backoffMs, type RetryPolicy } from '../plane/retry.js';
import type { Clock, Sleep } from '../plane/time.js';

export { GitHubError, retryWait };
export { nextCursor };

/**
 * GitHub as the App installation: an App JWT from the private key
 * (`@octokit/auth-app`), installation tokens cached until shortly before they
 * expire, and the few REST calls the protection rule needs, each retried within
 * a budget: 5xx and network failures with back-off, rate limits (429, or 403
 * with `retry-after` / `x-ratelimit-remaining: 0`) after the time GitHub names.
 */

/**
 * Whether a failed POST may still have been applied by GitHub: no final answer (a
 * network failure, 5xx past the retry budget) may have been; a 4xx answer was not.
 */
export function mayHaveApplied(error: unknown): boolean {
  return !(error instanceof GitHubError && error.status >= 400 && error.status < 500);
}

export interface Repo {
  owner: string;
  repo: string;
}

export interface RunInfo {
  status: string;
  runAttempt: number;
}

export type { HookDelivery };

export interface GitHubApp {
  /**
   * The App's recent webhook deliveries, newest first (app JWT), up to `maxItems`
   * and no older than `sinceMs` (wall clock): pages of 100 followed by their cursor.
   */
  listDeliveries(options: { sinceMs: number; maxItems: number }): Promise<HookDelivery[]>;
  /** The payload GitHub sent in one delivery (app JWT); undefined when it kept none. */
  deliveryPayload(id: number): Promise<unknown>;
  /** A token of the installation (cached); a GitHubError 404 for an unknown installation. */
  token(installationId: number): Promise<string>;
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

export interface AttemptControls {
  signal?: AbortSignal;
  beforeEach?: () => Promise<void>;
}

export interface GitHubAppOptions {
  appId: string;
  privateKey: string;
  apiUrl: string;
  http: HttpClient;
  clock: Clock;
  wallNow: () => number;
  sleep: Sleep;
  random: () => number;
  /** How long one call is retried in all. */
  budgetMs?: number;
  retry?: RetryPolicy;
  /** Aborted when the app stops: every call and every wait between retries ends at once. */
  signal?: AbortSignal;
}

/** A token expiring sooner than this is fetched again. */
const REFRESH_BEFORE_MS = 5 * 60_000;
const RETRY: RetryPolicy = { baseMs: 500, capMs: 15_000, maxAttempts: 12 };
const USER_AGENT = 'lease-gate-app';

export function createGitHubApp(options: GitHubAppOptions): GitHubApp {
  const { http, clock, sleep } = options;
  const budgetMs = options.budgetMs ?? 120_000;
  const policy = options.retry ?? RETRY;
  const auth = createAppAuth({
    appId: options.appId,
    privateKey: options.privateKey,
    // The token exchange goes through the one HTTP client too: its timeouts, its proxy rules.
    request: octokitRequest.defaults({
      baseUrl: options.apiUrl,
      headers: { 'user-agent': USER_AGENT },
      // The app's stop cuts a token exchange in flight too.
      request: { fetch: fetchOver(http), ...(options.signal ? { signal: options.signal } : {}) },
    }),
  });

  const stopping = options.signal;
  /** The app's stop and a call's own signal, either of which ends the call. */
  const either = (signal?: AbortSignal) =>
    signal && stopping ? AbortSignal.any([signal, stopping]) : (signal ?? stopping);
  const stopped = (what: string, signal: AbortSignal | undefined) => {
    if (!signal?.aborted) return;
    // No final answer: a POST in flight may have been applied (mayHaveApplied says so).
    throw new GitHubError(`${what}: stopped before GitHub's answer`, { status: 0 });
  };

  /** Retries `attempt` while it says how long to wait, within the budget; `signal` ends it. */
  async function retrying<T>(
    what: string,
    attempt: () => Promise<T | { retryInMs: number; why: string }>,
    signal = stopping,
  ): Promise<T> {
    const until = clock.now() + budgetMs;
    for (let n = 0; ; n += 1) {
      stopped(what, signal);
      const result = await attempt();
      if (!isRetry(result)) return result;
      const left = until - clock.now();
      if (n + 1 >= policy.maxAttempts || result.retryInMs > left) {
        throw new GitHubError(`${what}: ${result.why}; gave up after ${n + 1} attempts`, {
          status: 0,
        });
      }
      await sleep(result.retryInMs, signal);
    }
  }

  async function token(installationId: number, refresh = false): Promise<string> {
    let attempts = 0;
    return retrying(`installation ${installationId} token`, async () => {
      try {
        const got = await auth({
          type: 'installation',
          installationId,
          ...(refresh ? { refresh } : {}),
        });
        if (!refresh && Date.parse(got.expiresAt) - options.wallNow() < REFRESH_BEFORE_MS) {
          return token(installationId, true);
        }
        return got.token;
      } catch (error) {
        if (error instanceof GitHubError) throw error;
        // No answer (the client's timeout, a network failure): octokit wraps the client's
        // HttpError as a status 500; back off as for any other call, saying what happened.
        const failed = (error as { cause?: unknown }).cause;
        if (failed instanceof HttpError) {
          if (failed.failure === 'cancelled') throw failed;
          attempts += 1;
          return { retryInMs: backoffMs(policy, attempts, options.random), why: failed.message };
        }
        const status = Number((error as { status?: unknown }).status ?? 0);
        const headers =
          (error as { response?: { headers?: HttpAnswer['headers'] } }).response?.headers ?? {};
        const wait = retryWait({ status, headers }, options.wallNow(), policy, 0, options.random);
        if (wait !== undefined)
          return { retryInMs: wait, why: `GitHub answered ${status || 'nothing'}` };
        if (status === 404 || status === 401 || status === 403) {
          throw new GitHubError(
            `installation ${installationId}: GitHub refused a token (${status}): not installed, suspended, or the App id or key is wrong`,
            { status },
          );
        }
        throw new GitHubError(
          `installation ${installationId} token: ${untrusted(causeText(error), 200)}`,
          { status, cause: error },
        );
      }
    });
  }

  /** The App's own JWT (for `/app/…` routes), made by auth-app from the private key. */
  async function appJwt(): Promise<string> {
    try {
      return (await auth({ type: 'app' })).token;
    } catch (error) {
      throw new GitHubError(`App JWT: ${untrusted(causeText(error), 200)}`, {
        status: 0,
        cause: error,
      });
    }
  }

  /** `as`: an installation id (its token), or `'app'` (the App JWT). */
  async function call(
    method: 'GET' | 'POST',
    as: number | 'app',
    path: string,
    body?: object,
    controls: AttemptControls = {},
  ): Promise<HttpAnswer> {
    let attempt = 0;
    let refreshed = false;
    const signal = either(controls.signal);
    const what = `${method} ${path}`;
    return retrying(
      what,
      async () => {
        attempt += 1;
        const bearer = as === 'app' ? await appJwt() : await token(as, false);
        await controls.beforeEach?.();
        stopped(what, signal);
        return send(method, path, bearer, body, signal, attempt, () => {
          if (refreshed) return false;
          refreshed = true;
          return true;
        }).then(async (answer) => {
          if (answer !== 'refresh') return answer;
          if (as !== 'app') await token(as, true);
          return { retryInMs: 0, why: 'token refused' };
        });
      },
      signal,
    );
  }

  /** One attempt: the answer, how long to wait before the next, or `refresh` (a 401, once). */
  async function send(
    method: 'GET' | 'POST',
    path: string,
    bearer: string,
    body: object | undefined,
    signal: AbortSignal | undefined,
    attempt: number,
    mayRefresh: () => boolean,
  ): Promise<HttpAnswer | { retryInMs: number; why: string } | 'refresh'> {
    let answer: HttpAnswer;
    try {
      answer = await http.send({
        method,
        url: `${options.apiUrl}${path}`,
        headers: {
          ...restHeaders(bearer, USER_AGENT),
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      stopped(`${method} ${path}`, signal);
      if (!(error instanceof HttpError) || error.failure === 'cancelled') throw error;
      return { retryInMs: backoffMs(policy, attempt, options.random), why: error.message };
    }
    if (answer.status < 300) return answer;
    // A token GitHub no longer takes (revoked, or the clock moved): one fresh one.
    if (answer.status === 401 && mayRefresh()) return 'refresh';
    const wait = retryWait(answer, options.wallNow(), policy, attempt, options.random);
    if (wait !== undefined) return { retryInMs: wait, why: `GitHub answered ${answer.status}` };
    throw new GitHubError(
      `${method} ${path}: GitHub answered ${answer.status}: ${untrusted(answerMessage(answer.text), 200)}`,
      { status: answer.status },
    );
  }

  return {
    ...hookDeliveries((path) => call('GET', 'app', path)),
    token: (id) => token(id),
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
    async reviewers(installationId, repo, runId, environment) {
      const path = `${repoPath(repo)}/environments/${encodeURIComponent(environment)}`;
      const env = environmentSchema.safeParse(
        parseJson((await call('GET', installationId, path)).text),
      );
      if (!env.success)
        throw new GitHubError(
          `environment ${environment}: GitHub's answer has no protection_rules`,
          { status: 200 },
        );
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
    },
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

const isRetry = (value: unknown): value is { retryInMs: number; why: string } =>
  typeof value === 'object' && value !== null && 'retryInMs' in value && 'why' in value;

const repoPath = (repo: Repo) =>
  `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}`;
