import * as z from 'zod/mini';
import { causeText } from '../errors.js';
import type { HttpAnswer, HttpClient } from '../http/client.js';
import { HttpError } from '../http/errors.js';
import { COMMIT_PATTERN, REPOSITORY_PATTERN } from '../plane/deploy.js';
import { backoffMs, type RetryPolicy } from '../plane/retry.js';
import type { Clock, Sleep } from '../plane/time.js';
import {
  GitHubError,
  answerMessage,
  parseJson,
  printable,
  restHeaders,
  retryWait,
} from './rest.js';

/**
 * Whether one commit contains another, by GitHub's compare API
 * (`GET /repos/{owner}/{repo}/compare/{base}...{head}`, one commit per page so the answer
 * stays small): `ahead` or `identical` means head descends from base. Full commit ids only:
 * what one contains never changes, so an answer is kept (bounded) and asked once.
 * Retried within a short budget (a job waits on the answer): 5xx and network failures
 * back off; a rate limit is waited only when it ends within the budget. Any other
 * answer is final, and an error (the caller fails closed).
 */

export interface CompareOptions {
  /** `https://api.github.com`, or a GitHub Enterprise Server's `https://HOST/api/v3`. */
  apiUrl: string;
  http: HttpClient;
  /** The token to ask with; called again (a rotated file) when GitHub refuses it. */
  token: () => Promise<string>;
  clock: Clock;
  sleep: Sleep;
  wallNow: () => number;
  random: () => number;
  /** How long one question is retried in all. */
  budgetMs?: number;
  retry?: RetryPolicy;
}

export interface GitHubCompare {
  /** Whether `head` is `base` or descends from it, in `repository` (owner/repo). */
  contains(repository: string, base: string, head: string): Promise<boolean>;
}

const RETRY: RetryPolicy = { baseMs: 250, capMs: 2_000, maxAttempts: 5 };
const USER_AGENT = 'lease-gate-kernel';
/** Answers kept; the oldest go first (asking again is only slower). */
export const MAX_KEPT = 10_000;
const statusSchema = z.object({ status: z.enum(['ahead', 'behind', 'identical', 'diverged']) });

export function createGitHubCompare(options: CompareOptions): GitHubCompare {
  const { http, clock, sleep } = options;
  const budgetMs = options.budgetMs ?? 10_000;
  const policy = options.retry ?? RETRY;
  const kept = new Map<string, boolean>();

  async function ask(repository: string, base: string, head: string): Promise<boolean> {
    const [owner, repo] = repository.split('/') as [string, string];
    const path = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/compare/${base}...${head}?per_page=1`;
    const what = `GitHub's compare of ${repository} ${base.slice(0, 12)}...${head.slice(0, 12)}`;
    const until = clock.now() + budgetMs;
    let refreshed = false;
    for (let attempt = 1; ; attempt += 1) {
      let answer: HttpAnswer | undefined;
      let why: string;
      let waitMs: number | undefined;
      try {
        answer = await http.send({
          method: 'GET',
          url: `${options.apiUrl}${path}`,
          headers: restHeaders(await options.token(), USER_AGENT),
        });
      } catch (error) {
        if (!(error instanceof HttpError) || error.failure === 'cancelled') throw error;
        why = printable(causeText(error));
        waitMs = backoffMs(policy, attempt, options.random);
      }
      if (answer) {
        if (answer.status === 200) {
          const body = statusSchema.safeParse(parseJson(answer.text));
          if (!body.success)
            throw new GitHubError(`${what} answered no status GitHub documents`, { status: 200 });
          return body.data.status === 'ahead' || body.data.status === 'identical';
        }
        if (answer.status === 401 && !refreshed) {
          // A token GitHub no longer takes: read it again once (a rotated file).
          refreshed = true;
          continue;
        }
        why = `GitHub answered ${answer.status}: ${printable(answerMessage(answer.text))}`;
        waitMs = retryWait(answer, options.wallNow(), policy, attempt, options.random);
        if (waitMs === undefined)
          throw new GitHubError(`${what}: ${why}`, { status: answer.status });
      }
      if (attempt >= policy.maxAttempts || waitMs! > until - clock.now()) {
        throw new GitHubError(`${what}: ${why!}; gave up after ${attempt} attempts`, {
          status: answer?.status ?? 0,
        });
      }
      await sleep(waitMs!);
    }
  }

  return {
    async contains(repository, base, head) {
      if (
        !REPOSITORY_PATTERN.test(repository) ||
        !COMMIT_PATTERN.test(base) ||
        !COMMIT_PATTERN.test(head)
      )
        throw new GitHubError('compare: expected owner/repo and two full commit ids', {
          status: 0,
        });
      if (base === head) return true;
      const key = `${repository} ${base} ${head}`;
      const known = kept.get(key);
      if (known !== undefined) return known;
      const answer = await ask(repository, base, head);
      kept.set(key, answer);
      if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
      return answer;
    },
  };
}
