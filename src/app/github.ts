import { createAppAuth } from '@octokit/auth-app';
import { request as octokitRequest } from '@octokit/request';
import type { HttpAnswer, HttpClient } from '../http/client.js';
import { fetchOver } from '../http/fetch.js';
import * as z from 'zod/mini';
import { causeText } from '../errors.js';
import { HttpError } from '../http/errors.js';
import {
  GitHubError,
  answerMessage,
  headerOf,
  parseJson,
  restHeaders,
  retryWait,
} from '../github/rest.js';
import { untrusted } from '../lease/escape.js';
import { approvalsSchema, environmentSchema, runSchema } from './events.js';
import { backoffMs, type RetryPolicy } from '../plane/retry.js';
import type { Clock, Sleep } from '../plane/time.js';

export { GitHubError, retryWait };

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

/** One of the App's webhook deliveries, as `GET /app/hook/deliveries` lists it. */
export interface HookDelivery {
  id: number;
  guid: string;
  deliveredAtMs: number;
  redelivery: boolean;
  statusCode: number;
  event: string;
  action: string | null;
}

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
  /** Approves or rejects the run's pending protection rule for one environment. */
  review(
    installationId: number,
    repo: Repo,
    runId: string,
    body: { environment_name: string; state: 'approved' | 'rejected'; comment: string },
  ): Promise<void>;
  /** A deployment status while the run waits (what GitHub shows in the environment's list). */
  deploymentStatus(
    installationId: number,
    repo: Repo,
    deploymentId: number,
    description: string,
  ): Promise<void>;
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
      request: { fetch: fetchOver(http) },
    }),
  });

  /** Retries `attempt` while it says how long to wait, within the budget. */
  async function retrying<T>(
    what: string,
    attempt: () => Promise<T | { retryInMs: number; why: string }>,
  ): Promise<T> {
    const until = clock.now() + budgetMs;
    for (let n = 0; ; n += 1) {
      const result = await attempt();
      if (!isRetry(result)) return result;
      const left = until - clock.now();
      if (n + 1 >= policy.maxAttempts || result.retryInMs > left) {
        throw new GitHubError(`${what}: ${result.why}; gave up after ${n + 1} attempts`, {
          status: 0,
        });
      }
      await sleep(result.retryInMs);
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
  ): Promise<HttpAnswer> {
    let attempt = 0;
    let refreshed = false;
    return retrying(`${method} ${path}`, async () => {
      attempt += 1;
      const bearer = as === 'app' ? await appJwt() : await token(as, false);
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
        });
      } catch (error) {
        if (!(error instanceof HttpError) || error.failure === 'cancelled') throw error;
        return { retryInMs: backoffMs(policy, attempt, options.random), why: error.message };
      }
      if (answer.status < 300) return answer;
      if (answer.status === 401 && !refreshed) {
        // A token GitHub no longer takes (revoked, or the clock moved): one fresh one.
        refreshed = true;
        if (as !== 'app') await token(as, true);
        return { retryInMs: 0, why: 'token refused' };
      }
      const wait = retryWait(answer, options.wallNow(), policy, attempt, options.random);
      if (wait !== undefined) return { retryInMs: wait, why: `GitHub answered ${answer.status}` };
      throw new GitHubError(
        `${method} ${path}: GitHub answered ${answer.status}: ${untrusted(answerMessage(answer.text), 200)}`,
        { status: answer.status },
      );
    });
  }

  return {
    async listDeliveries({ sinceMs, maxItems }) {
      const found: HookDelivery[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_DELIVERY_PAGES; page += 1) {
        const query = `per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const answer = await call('GET', 'app', `/app/hook/deliveries?${query}`);
        const items = z.array(hookDeliverySchema).safeParse(parseJson(answer.text));
        if (!items.success) {
          throw new GitHubError(
            "GET /app/hook/deliveries: GitHub's answer is not a list of deliveries",
            { status: answer.status },
          );
        }
        for (const item of items.data) {
          const deliveredAtMs = Date.parse(item.delivered_at);
          // Newest first: once past the window, every later item is older still.
          if (!(deliveredAtMs >= sinceMs)) return found;
          found.push({
            id: item.id,
            guid: item.guid,
            deliveredAtMs,
            redelivery: item.redelivery,
            statusCode: item.status_code,
            event: item.event,
            action: item.action ?? null,
          });
          if (found.length >= maxItems) return found;
        }
        cursor = nextCursor(headerOf(answer, 'link'));
        if (!cursor) return found;
      }
      return found;
    },
    async deliveryPayload(id) {
      const answer = await call('GET', 'app', `/app/hook/deliveries/${id}`);
      const detail = deliveryDetailSchema.safeParse(parseJson(answer.text));
      return detail.success ? (detail.data.request.payload ?? undefined) : undefined;
    },
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
    async review(installationId, repo, runId, body) {
      await call(
        'POST',
        installationId,
        `${repoPath(repo)}/actions/runs/${runId}/deployment_protection_rule`,
        body,
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

/** At most this many pages of 100 deliveries are read at start (GitHub keeps 3 days of them). */
const MAX_DELIVERY_PAGES = 30;

const hookDeliverySchema = z.object({
  id: z.number().check(z.int(), z.positive()),
  guid: z.string().check(z.maxLength(100)),
  delivered_at: z.string().check(z.maxLength(40)),
  redelivery: z.boolean(),
  status_code: z.number(),
  event: z.string().check(z.maxLength(64)),
  action: z.optional(z.nullable(z.string().check(z.maxLength(64)))),
});
const deliveryDetailSchema = z.object({
  request: z.object({ payload: z.optional(z.nullable(z.unknown())) }),
});

/**
 * The `cursor` of the Link header's `rel="next"`, never its URL: the next page is
 * asked of the configured API origin, so a header cannot send the App JWT elsewhere.
 */
export function nextCursor(link: string | undefined): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (!match) continue;
    try {
      const cursor = new URL(match[1]!).searchParams.get('cursor');
      return cursor && cursor.length <= 200 ? cursor : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const isRetry = (value: unknown): value is { retryInMs: number; why: string } =>
  typeof value === 'object' && value !== null && 'retryInMs' in value && 'why' in value;

const repoPath = (repo: Repo) =>
  `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}`;
