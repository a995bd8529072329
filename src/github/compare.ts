import * as z from 'zod/mini';
import { causeText } from '../errors.js';
import type { HttpAnswer, HttpClient } from '../http/client.js';
import { HttpError } from '../http/errors.js';
import { COMMIT_PATTERN, REPOSITORY_PATTERN } from '../plane/deploy.js';
import { backoffMs, type RetryPolicy } from '../plane/retry.js';
import type { Clock, Sleep } from '../plane/time.js';
import { CompareBudget, CompareBudgetSpent } from './compare-budget.js';
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
 * answer is final, and an error (the caller fails closed). Every call is counted against
 * the caller's and the kernel's budget (compare-budget.ts), and a commit GitHub could not
 * answer about is not asked about again for `FAILED_FOR_MS`: a client naming fresh commits
 * cannot spend the token's quota.
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
  /** The calls allowed per caller and per kernel (by default COMPARE_LIMITS on `clock`). */
  budget?: CompareBudget;
}

export interface GitHubCompare {
  /**
   * Whether `head` is `base` or descends from it, in `repository` (owner/repo). `caller`:
   * whose budget the calls are taken from (compare-budget.ts); none, the kernel's only.
   */
  contains(repository: string, base: string, head: string, caller?: string): Promise<boolean>;
}

const RETRY: RetryPolicy = { baseMs: 250, capMs: 2_000, maxAttempts: 5 };
const USER_AGENT = 'lease-gate-kernel';
/** Answers kept; the oldest go first (asking again is only slower). */
export const MAX_KEPT = 10_000;
/**
 * How long a commit GitHub could not answer about (unknown to it, GitHub down, the token
 * refused) is refused without asking again: one failure, not one per request and candidate.
 */
export const FAILED_FOR_MS = 60_000;
const statusSchema = z.object({ status: z.enum(['ahead', 'behind', 'identical', 'diverged']) });

/** A compare's options with their defaults, and what it keeps between questions. */
interface Compare {
  options: CompareOptions;
  budgetMs: number;
  policy: RetryPolicy;
  budget: CompareBudget;
  /** The answers, by `repository base head`. */
  kept: Map<string, boolean>;
  /** Per `repository base`: what GitHub last failed with, and until when it stands. */
  failed: Map<string, { untilMs: number; message: string; status: number }>;
}

export function createGitHubCompare(options: CompareOptions): GitHubCompare {
  const compare: Compare = {
    options,
    budgetMs: options.budgetMs ?? 10_000,
    policy: options.retry ?? RETRY,
    budget: options.budget ?? new CompareBudget(options.clock),
    kept: new Map(),
    failed: new Map(),
  };
  return {
    contains: (repository, base, head, caller) => contains(compare, repository, base, head, caller),
  };
}

async function contains(
  compare: Compare,
  repository: string,
  base: string,
  head: string,
  caller: string | undefined,
): Promise<boolean> {
  if (
    !REPOSITORY_PATTERN.test(repository) ||
    !COMMIT_PATTERN.test(base) ||
    !COMMIT_PATTERN.test(head)
  )
    throw new GitHubError('compare: expected owner/repo and two full commit ids', {
      status: 0,
    });
  if (base === head) return true;
  const { kept } = compare;
  const key = `${repository} ${base} ${head}`;
  const known = kept.get(key);
  if (known !== undefined) return known;
  const commit = `${repository} ${base}`;
  failedBefore(compare, commit);
  let answer: boolean;
  try {
    answer = await ask(compare, repository, base, head, caller);
  } catch (error) {
    keepFailure(compare, commit, error);
    throw error;
  }
  kept.set(key, answer);
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
  return answer;
}

async function ask(
  { options, budgetMs, policy, budget }: Compare,
  repository: string,
  base: string,
  head: string,
  caller: string | undefined,
): Promise<boolean> {
  const { http, clock, sleep } = options;
  const [owner, repo] = repository.split('/') as [string, string];
  const path = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/compare/${base}...${head}?per_page=1`;
  const what = `GitHub's compare of ${repository} ${base.slice(0, 12)}...${head.slice(0, 12)}`;
  const until = clock.now() + budgetMs;
  let refreshed = false;
  for (let attempt = 1; ; attempt += 1) {
    let answer: HttpAnswer | undefined;
    let why: string;
    let waitMs: number | undefined;
    budget.take(caller);
    try {
      const headers = restHeaders(await options.token(), USER_AGENT);
      answer = await budget.slot(() =>
        http.send({ method: 'GET', url: `${options.apiUrl}${path}`, headers }),
      );
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
      if (waitMs === undefined) throw new GitHubError(`${what}: ${why}`, { status: answer.status });
    }
    if (attempt >= policy.maxAttempts || waitMs! > until - clock.now()) {
      throw new GitHubError(`${what}: ${why!}; gave up after ${attempt} attempts`, {
        status: answer?.status ?? 0,
      });
    }
    await sleep(waitMs!);
  }
}

/** The failure kept for this commit, thrown again while it stands. */
function failedBefore({ failed, options }: Compare, key: string): void {
  const before = failed.get(key);
  if (!before) return;
  const leftMs = before.untilMs - options.clock.now();
  if (leftMs <= 0) return void failed.delete(key);
  throw new GitHubError(
    `${before.message}; this commit is not asked about again for ${Math.ceil(leftMs / 1000)} s`,
    { status: before.status },
  );
}

function keepFailure({ failed, options }: Compare, key: string, error: unknown): void {
  if (!(error instanceof GitHubError) || error instanceof CompareBudgetSpent) return;
  failed.delete(key);
  failed.set(key, {
    untilMs: options.clock.now() + FAILED_FOR_MS,
    message: error.message,
    status: error.status,
  });
  if (failed.size > MAX_KEPT) failed.delete(failed.keys().next().value!);
}
