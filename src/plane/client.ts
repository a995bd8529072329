import { STATUS_CODES } from 'node:http';
import type { Agent } from 'node:http';
import type { z } from 'zod';
import {
  CancelledError,
  ContractError,
  KeyRefusedError,
  PlaneUnavailableError,
  RequestRejectedError,
  TransientError,
} from './errors.js';
import { DEFAULT_RETRY, backoffMs, parseRetryAfter, type RetryPolicy } from './retry.js';
import {
  LEASE_PATH,
  RELEASE_PATH,
  REVOKE_PATH,
  describeIssues,
  grantedSchema,
  heldSchema,
  otherRefusalSchema,
  releaseAnswerSchema,
  revokeAnswerSchema,
  statusAnswerSchema,
  type Lease,
  type LeaseAnswer,
  type LeaseRequest,
  type ReleaseAnswer,
} from './schema.js';
import { realSleep, systemClock, type Clock, type Sleep } from './time.js';
import { exchange, type Answer } from './transport.js';

export interface PlaneClientOptions {
  /** The plane's origin, already checked by parsePlaneUrl. */
  apiUrl: string;
  /** Sent as a Bearer token; omitted when empty (a keyless local kernel). */
  key?: string | undefined;
  requestTimeoutMs?: number;
  retry?: RetryPolicy;
  clock?: Clock;
  sleep?: Sleep;
  random?: () => number;
  /** A node:http(s) Agent, for callers that want their own connection pool. */
  agent?: Agent;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Monotonic time after which transient failures are no longer retried. */
  retryUntilMs?: number | undefined;
}

export interface PlaneClient {
  readonly apiUrl: string;
  lease(req: LeaseRequest, options?: CallOptions): Promise<LeaseAnswer>;
  release(req: LeaseRequest, options?: CallOptions): Promise<ReleaseAnswer>;
  status(resource: string, options?: CallOptions): Promise<Lease | null>;
  revoke(
    resource: string,
    reason: string,
    adminKey: string,
    options?: CallOptions,
  ): Promise<{ revoked: boolean }>;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const DEFAULT_RETRY_WINDOW_MS = 30_000;
/** A refusal's status is undocumented: the body decides for these. */
const BODY_DECIDES = new Set([409, 423]);

interface RawAnswer {
  status: number;
  body: unknown;
}

export function createPlaneClient(options: PlaneClientOptions): PlaneClient {
  const clock = options.clock ?? systemClock;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const policy = options.retry ?? DEFAULT_RETRY;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;

  async function send(
    method: 'GET' | 'POST',
    path: string,
    payload: unknown,
    signal: AbortSignal | undefined,
    bearer: string | undefined,
  ): Promise<RawAnswer> {
    const url = options.apiUrl + path;
    const call = `[${method}] "${url}"`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Answer;
    try {
      response = await exchange({
        method,
        url,
        headers,
        body: payload === undefined ? undefined : JSON.stringify(payload),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        agent: options.agent,
      });
    } catch (error) {
      if (signal?.aborted) throw new CancelledError();
      const why = timeout.aborted
        ? `no answer within ${timeoutMs} ms`
        : (error as Error).message || String(error);
      throw new TransientError(`${call}: ${why}`, call);
    }
    const { status, text } = response;
    const statusText = `${status} ${STATUS_CODES[status] ?? ''}`.trim();
    if (status === 401 || status === 403) {
      throw new KeyRefusedError(
        `${call}: ${statusText}. The plane refused the key; check the key input or INTRAMEDIAL_KEY.`,
        call,
        status,
      );
    }
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfter = parseRetryAfter(headerValue(response.headers['retry-after']), Date.now());
      throw new TransientError(`${call}: ${statusText}`, call, status, retryAfter);
    }
    const body = parseJson(text);
    if ((status < 200 || status >= 300) && !(path === LEASE_PATH && BODY_DECIDES.has(status))) {
      const detail = messageOf(body);
      throw new RequestRejectedError(
        `${call}: ${statusText}${detail ? ` (${detail})` : ''}`,
        call,
        status,
      );
    }
    if (body === undefined) {
      throw new ContractError(`${call}: ${statusText}, but the body is not JSON`, call, status);
    }
    return { status, body };
  }

  async function withRetries<T>(attempt: () => Promise<T>, call: CallOptions): Promise<T> {
    const until = call.retryUntilMs ?? clock.now() + DEFAULT_RETRY_WINDOW_MS;
    for (let n = 0; ; n += 1) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof TransientError)) throw error;
        const wait = error.retryAfterMs ?? backoffMs(policy, n, random);
        if (n + 1 >= policy.maxAttempts || clock.now() + wait > until) {
          throw new PlaneUnavailableError(
            `${error.message} — still failing after ${n + 1} attempt(s); the plane looks unavailable`,
            error.call,
            error.status,
          );
        }
        await sleep(wait, call.signal);
        if (call.signal?.aborted) throw new CancelledError();
      }
    }
  }

  function check<T>(schema: z.ZodType<T>, raw: RawAnswer, call: string): T {
    const parsed = schema.safeParse(raw.body);
    if (parsed.success) return parsed.data;
    throw new ContractError(
      `${call}: the answer does not match the plane's contract: ${describeIssues(parsed.error)}`,
      call,
      raw.status,
    );
  }

  const key = options.key || undefined;
  const post = (path: string, payload: unknown, call: CallOptions, bearer = key) =>
    withRetries(() => send('POST', path, payload, call.signal, bearer), call);

  return {
    apiUrl: options.apiUrl,

    async lease(req, call = {}) {
      const raw = await post(LEASE_PATH, { resource: req.resource, actorDid: req.actorDid }, call);
      return interpretLease(raw, `[POST] "${options.apiUrl}${LEASE_PATH}"`, check);
    },

    async release(req, call = {}) {
      const raw = await post(
        RELEASE_PATH,
        { resource: req.resource, actorDid: req.actorDid },
        call,
      );
      const answer = check(releaseAnswerSchema, raw, `[POST] "${options.apiUrl}${RELEASE_PATH}"`);
      return { released: answer.releasedIds.length > 0, releasedIds: answer.releasedIds };
    },

    async status(resource, call = {}) {
      const path = `${LEASE_PATH}?resource=${encodeURIComponent(resource)}`;
      const raw = await withRetries(() => send('GET', path, undefined, call.signal, key), call);
      return check(statusAnswerSchema, raw, `[GET] "${options.apiUrl}${path}"`).lease;
    },

    async revoke(resource, reason, adminKey, call = {}) {
      const raw = await post(REVOKE_PATH, { resource, reason }, call, adminKey);
      const answer = check(revokeAnswerSchema, raw, `[POST] "${options.apiUrl}${REVOKE_PATH}"`);
      return { revoked: answer.revoked };
    },
  };
}

function interpretLease(
  raw: RawAnswer,
  call: string,
  check: <T>(schema: z.ZodType<T>, raw: RawAnswer, call: string) => T,
): LeaseAnswer {
  const ok = (raw.body as { ok?: unknown } | null)?.ok;
  if (ok === true) return { kind: 'granted', lease: check(grantedSchema, raw, call).lease };
  const refusal = check(otherRefusalSchema, raw, call);
  if (refusal.reason === 'lease_held') {
    const held = check(heldSchema, raw, call);
    return { kind: 'held', holder: held.holder, waitMs: held.stampede.waitMs };
  }
  return { kind: 'refused', reason: refusal.reason, message: refusal.message };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function messageOf(body: unknown): string | undefined {
  if (body && typeof body === 'object') {
    const { message, reason } = body as { message?: unknown; reason?: unknown };
    if (typeof message === 'string') return message;
    if (typeof reason === 'string') return reason;
  }
  return undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
