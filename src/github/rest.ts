import * as z from 'zod/mini';
import { causeOf, LeaseGateError, type CauseOptions } from '../errors.js';
import type { HttpAnswer } from '../http/client.js';
import { backoffMs, parseRetryAfter, type RetryPolicy } from '../plane/retry.js';

/**
 * What every caller of GitHub's REST API shares (the protection-rule app, the kernel's
 * promotion check): the error it throws, how long a refusal says to wait, and GitHub's
 * own error text, read as untrusted.
 */

export class GitHubError extends LeaseGateError<'github'> {
  override name = 'GitHubError';
  /** GitHub's status, or 0 when no answer came. */
  readonly status: number;
  constructor(message: string, options: CauseOptions & { status: number }) {
    super(message, { ...causeOf(options.cause), code: 'github' });
    this.status = options.status;
  }
}

/** The headers every REST call sends (the bearer is the caller's). */
export function restHeaders(bearer: string, userAgent: string): Record<string, string> {
  return {
    authorization: `Bearer ${bearer}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    'user-agent': userAgent,
  };
}

/** GitHub's advice for a secondary rate limit that names no time. */
const RATE_LIMIT_FALLBACK_MS = 60_000;

export function headerOf(answer: Pick<HttpAnswer, 'headers'>, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * How long to wait before asking again, or undefined when asking again cannot help:
 * a rate limit waits what GitHub names; 5xx backs off; anything else is final.
 */
export function retryWait(
  answer: Pick<HttpAnswer, 'status' | 'headers'>,
  wallNow: number,
  policy: RetryPolicy,
  attempt: number,
  random: () => number,
): number | undefined {
  const retryAfter = parseRetryAfter(headerOf(answer, 'retry-after'), wallNow);
  const remaining = headerOf(answer, 'x-ratelimit-remaining');
  const reset = Number(headerOf(answer, 'x-ratelimit-reset') ?? NaN);
  const limited =
    answer.status === 429 ||
    (answer.status === 403 && (retryAfter !== undefined || remaining === '0'));
  if (limited) {
    if (retryAfter !== undefined) return retryAfter;
    if (remaining === '0' && Number.isFinite(reset))
      return Math.max(0, reset * 1000 - wallNow) + 1_000;
    return RATE_LIMIT_FALLBACK_MS;
  }
  if (answer.status >= 500 || answer.status === 408) return backoffMs(policy, attempt, random);
  return undefined;
}

/** GitHub's error answers: `{ message, documentation_url }`. */
const githubErrorSchema = z.object({ message: z.string() });

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The `message` of GitHub's error answer, or the start of what it sent (not yet escaped). */
export function answerMessage(text: string): string {
  const body = githubErrorSchema.safeParse(parseJson(text));
  return body.success ? body.data.message : text.slice(0, 200);
}

/** GitHub's text bound for a message that travels on (a refusal a job prints): printable ASCII. */
export function printable(text: string, max = 200): string {
  const line = text.replace(/[^\x20-\x7e]/g, '?');
  return line.length <= max ? line : `${line.slice(0, max - 1)}~`;
}
