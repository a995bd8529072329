import { STATUS_CODES } from 'node:http';
import type { HttpAnswer, HttpClient } from '../http/client.js';
import { causeText } from '../errors.js';
import { HttpError } from '../http/errors.js';
import {
  CancelledError,
  ContractError,
  KeyRefusedError,
  RequestRejectedError,
  TransientError,
  type PlaneError,
} from './errors.js';
import { bodyMessage, parseJson } from './json-body.js';
import { parseRetryAfter } from './retry.js';
import { LEASE_PATH } from './schema.js';
import { planeDateOf } from './plane-date.js';

/**
 * One plane request, sent once: its credential and headers, and the answer's HTTP status
 * read as a typed failure (PlaneError) or a JSON body for the route's reader. Retries are
 * the caller's (retry-loop.ts).
 */

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Monotonic time after which transient failures are no longer retried. */
  retryUntilMs?: number | undefined;
  /** Ask the plane to hold a lease request up to this many seconds (RFC 7240 `Prefer: wait`). */
  waitSeconds?: number | undefined;
}

export interface RawAnswer {
  status: number;
  body: unknown;
  preferenceApplied: boolean;
  /** The answer's Date header: the plane's clock, whole seconds. */
  dateMs: number | undefined;
}

export interface SenderOptions {
  /** The plane's origin, already checked by parsePlaneUrl. */
  apiUrl: string;
  key?: string | undefined;
  bearer?: (() => Promise<string>) | undefined;
  keyHint?: string | undefined;
  http: HttpClient;
  timeoutMs: number;
}

/** `bearer`: the credential of this call (FRESH_TOKEN for the token `bearer` gives now). */
export type Send = (
  method: 'GET' | 'POST',
  path: string,
  payload: unknown,
  call: CallOptions,
  bearer: string | undefined,
) => Promise<RawAnswer>;

/** Stands for "the token `bearer` gives now" where a call takes its credential. */
export const FRESH_TOKEN = '\0fresh-token';

/** A refusal's status is undocumented: the body decides for these. */
const BODY_DECIDES = new Set([409, 423]);

export function createSender(options: SenderOptions): Send {
  return async (method, path, payload, call, bearer) => {
    const url = options.apiUrl + path;
    const name = `[${method}] "${url}"`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const credential = bearer === FRESH_TOKEN ? await freshToken(options, name) : bearer;
    if (credential) headers.authorization = `Bearer ${credential}`;
    const wait = call.waitSeconds && call.waitSeconds >= 1 ? Math.floor(call.waitSeconds) : 0;
    if (wait) headers.prefer = `wait=${wait}`;
    let response: HttpAnswer;
    try {
      response = await options.http.send({
        method,
        url,
        headers,
        body: payload === undefined ? undefined : JSON.stringify(payload),
        signal: call.signal,
        timeoutMs: options.timeoutMs,
      });
    } catch (error) {
      if (call.signal?.aborted) throw new CancelledError();
      const why =
        error instanceof HttpError ? error.message.slice(name.length + 2) : causeText(error);
      throw new TransientError(`${name}: ${why}`, { call: name, cause: error });
    }
    return readAnswer(options, { name, path, wait }, response);
  };
}

async function freshToken(options: SenderOptions, name: string): Promise<string> {
  try {
    return await options.bearer!();
  } catch (error) {
    // The token service may be down a moment: retried like the plane itself.
    const why = causeText(error).slice(0, 200);
    throw new TransientError(`${name}: could not get an OIDC token (${why})`, {
      call: name,
      cause: error,
      failing: 'the OIDC token service',
    });
  }
}

/** The answer as a JSON body, or the typed failure its status means. */
function readAnswer(
  options: SenderOptions,
  sent: { name: string; path: string; wait: number },
  response: HttpAnswer,
): RawAnswer {
  const { name, wait } = sent;
  const { status, text } = response;
  const statusText = `${status} ${STATUS_CODES[status] ?? ''}`.trim();
  const body = parseJson(text);
  const failure = statusFailure(options, sent, response, statusText, body);
  if (failure) throw failure;
  if (body === undefined) {
    throw new ContractError(`${name}: ${statusText}, but the body is not JSON`, {
      call: name,
      status,
    });
  }
  const applied = headerValue(response.headers['preference-applied']) ?? '';
  return {
    status,
    body,
    preferenceApplied: wait > 0 && /(^|[\s,])wait=\d+/i.test(applied),
    dateMs: planeDateOf(response.headers.date),
  };
}

/** 401/403: the key; 408, 429, 5xx: worth asking again; other non-2xx: rejected. */
function statusFailure(
  options: SenderOptions,
  sent: { name: string; path: string },
  response: HttpAnswer,
  statusText: string,
  body: unknown,
): PlaneError | undefined {
  const { name, path } = sent;
  const { status } = response;
  if (status === 401 || status === 403) return keyRefused(options, name, status, statusText, body);
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfter = parseRetryAfter(headerValue(response.headers['retry-after']), Date.now());
    const detail = bodyMessage(body);
    return new TransientError(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, {
      call: name,
      status,
      retryAfterMs: retryAfter,
    });
  }
  if ((status < 200 || status >= 300) && !(path === LEASE_PATH && BODY_DECIDES.has(status))) {
    const detail = bodyMessage(body);
    return new RequestRejectedError(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, {
      call: name,
      status,
    });
  }
  return undefined;
}

function keyRefused(
  options: SenderOptions,
  name: string,
  status: number,
  statusText: string,
  body: unknown,
): KeyRefusedError {
  // The plane's own words first (escaped, one line): a kernel says what it wanted.
  const said = bodyMessage(body);
  const sent = options.bearer
    ? 'the OIDC token sent'
    : options.key
      ? 'the key'
      : 'the call: no key was sent';
  // A refused job token is no key's fault: say what the kernel checks of a token instead.
  const hint = !options.bearer
    ? undefined
    : status === 403
      ? "the kernel's policy rules for the token's issuer against the job's claims (docs/ci-issuers.md)"
      : "that the kernel trusts the token's issuer and audience (its --oidc-issuer or --oidc-issuers, docs/ci-issuers.md)";
  const keyHint =
    hint ?? options.keyHint ?? 'LEASE_GATE_KEY (or INTRAMEDIAL_KEY for the hosted plane)';
  return new KeyRefusedError(
    `${name}: ${statusText}${said ? ` (${said})` : ''}. The plane refused ${sent}; check ${keyHint}.`,
    { call: name, status, said },
  );
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
