import type { HttpAnswer, HttpClient } from '../http/client.js';
import { HttpError } from '../http/errors.js';
import { GitHubError, answerMessage, restHeaders, retryWait } from '../github/rest.js';
import { untrusted } from '../lease/escape.js';
import { backoffMs, type RetryPolicy } from '../plane/retry.js';
import type { Clock, Sleep } from '../plane/time.js';

/**
 * How the App's calls reach GitHub: each retried within a budget, 5xx and network failures
 * with back-off, rate limits (429, or 403 with `retry-after` / `x-ratelimit-remaining: 0`)
 * after the time GitHub names; a token GitHub refuses (401) fetched again once; the app's
 * stop ending every call and every wait between retries.
 */

export interface TransportOptions {
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
  /** Told of each attempt's answer status, or undefined when none came (the metrics). */
  onAttempt?: ((status: number | undefined) => void) | undefined;
}

export interface AttemptControls {
  signal?: AbortSignal;
  beforeEach?: () => Promise<void>;
}

/** Who a call is made as: an installation's token (`refresh`: a new one), or the App's JWT. */
export interface Bearers {
  token(installationId: number, refresh: boolean): Promise<string>;
  appJwt(): Promise<string>;
}

/** One REST call, retried; `as`: an installation id (its token), or `'app'` (the App JWT). */
export type GitHubCall = (
  method: 'GET' | 'POST',
  as: number | 'app',
  path: string,
  body?: object,
  controls?: AttemptControls,
) => Promise<HttpAnswer>;

/** An attempt that asks to be made again after `retryInMs`, saying why. */
export interface RetryIn {
  retryInMs: number;
  why: string;
}

/** The options with their defaults filled in, which every call reads. */
export interface Transport {
  options: TransportOptions;
  budgetMs: number;
  policy: RetryPolicy;
}

const RETRY: RetryPolicy = { baseMs: 500, capMs: 15_000, maxAttempts: 12 };
export const USER_AGENT = 'lease-gate-app';

export function transport(options: TransportOptions): Transport {
  return { options, budgetMs: options.budgetMs ?? 120_000, policy: options.retry ?? RETRY };
}

function stopped(what: string, signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  // No final answer: a POST in flight may have been applied (mayHaveApplied says so).
  throw new GitHubError(`${what}: stopped before GitHub's answer`, { status: 0 });
}

/** Retries `attempt` while it says how long to wait, within the budget; `signal` ends it. */
export async function retrying<T>(
  t: Transport,
  what: string,
  attempt: () => Promise<T | RetryIn>,
  signal = t.options.signal,
): Promise<T> {
  const until = t.options.clock.now() + t.budgetMs;
  for (let n = 0; ; n += 1) {
    stopped(what, signal);
    const result = await attempt();
    if (!isRetry(result)) return result;
    const left = until - t.options.clock.now();
    if (n + 1 >= t.policy.maxAttempts || result.retryInMs > left) {
      throw new GitHubError(`${what}: ${result.why}; gave up after ${n + 1} attempts`, {
        status: 0,
      });
    }
    await t.options.sleep(result.retryInMs, signal);
  }
}

export function createCall(t: Transport, bearers: Bearers): GitHubCall {
  const stopping = t.options.signal;
  /** The app's stop and a call's own signal, either of which ends the call. */
  const either = (signal?: AbortSignal) =>
    signal && stopping ? AbortSignal.any([signal, stopping]) : (signal ?? stopping);
  return async (method, as, path, body, controls = {}) => {
    let attempt = 0;
    let refreshed = false;
    const signal = either(controls.signal);
    const what = `${method} ${path}`;
    return retrying(
      t,
      what,
      async () => {
        attempt += 1;
        const bearer = as === 'app' ? await bearers.appJwt() : await bearers.token(as, false);
        await controls.beforeEach?.();
        stopped(what, signal);
        return send(t, { method, path, bearer, body, signal }, attempt, () => {
          if (refreshed) return false;
          refreshed = true;
          return true;
        }).then(async (answer) => {
          if (answer !== 'refresh') return answer;
          if (as !== 'app') await bearers.token(as, true);
          return { retryInMs: 0, why: 'token refused' };
        });
      },
      signal,
    );
  };
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  bearer: string;
  body: object | undefined;
  signal: AbortSignal | undefined;
}

/** One attempt: the answer, how long to wait before the next, or `refresh` (a 401, once). */
async function send(
  { options, policy }: Transport,
  { method, path, bearer, body, signal }: Request,
  attempt: number,
  mayRefresh: () => boolean,
): Promise<HttpAnswer | RetryIn | 'refresh'> {
  let answer: HttpAnswer;
  try {
    answer = await options.http.send({
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
    options.onAttempt?.(undefined);
    return { retryInMs: backoffMs(policy, attempt, options.random), why: error.message };
  }
  options.onAttempt?.(answer.status);
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

const isRetry = (value: unknown): value is RetryIn =>
  typeof value === 'object' && value !== null && 'retryInMs' in value && 'why' in value;
