import { STATUS_CODES } from 'node:http';
import { createHttpClient, type HttpAnswer, type HttpClient } from '../http/client.js';
import { causeText } from '../errors.js';
import { HttpError } from '../http/errors.js';
import {
  CancelledError,
  ContractError,
  KeyRefusedError,
  PlaneUnavailableError,
  RequestRejectedError,
  TransientError,
} from './errors.js';
import { BrokenGrantError, grantProblem, type GrantProblem } from './grant.js';
import { deploySchema, supersededSchema } from './deploy.js';
import { DEFAULT_RETRY, nextRetryMs, parseRetryAfter, type RetryPolicy } from './retry.js';
import {
  LEASE_PATH,
  RELEASE_PATH,
  REVOKE_PATH,
  WATCH_PATH,
  clipText,
  describeIssues,
  grantedSchema,
  FREEZE_PATH,
  UNFREEZE_PATH,
  BREAK_GLASS_PATH,
  APPROVE_BREAK_GLASS_PATH,
  WITHDRAW_BREAK_GLASS_PATH,
  breakGlassAnswerSchema,
  type BreakGlassAnswer,
  freezeAnswerSchema,
  frozenSchema,
  heldSchema,
  otherRefusalSchema,
  releaseAnswerSchema,
  revokeAnswerSchema,
  revokedSchema,
  statusAnswerSchema,
  watchAnswerSchema,
  type Lease,
  type LeaseAnswer,
  type LeaseRequest,
  type FreezeStatus,
  type ReleaseAnswer,
  type WatchAnswer,
} from './schema.js';
import { realSleep, systemClock, type Clock, type Sleep } from './time.js';
import { planeDateOf } from './plane-date.js';

export interface PlaneClientOptions {
  /** The plane's origin, already checked by parsePlaneUrl. */
  apiUrl: string;
  /** Sent as a Bearer token; omitted when empty (a keyless local kernel). */
  key?: string | undefined;
  /** Asked before each call for the Bearer token (a fresh OIDC ID token); used instead of `key`. */
  bearer?: (() => Promise<string>) | undefined;
  requestTimeoutMs?: number;
  retry?: RetryPolicy;
  clock?: Clock;
  sleep?: Sleep;
  random?: () => number;
  /** Shared HTTP client; without one the plane client makes its own and close() closes it. */
  http?: HttpClient;
  /** Told before each retry of a transient failure (for a "retrying" line). */
  onRetry?: (event: RetryEvent) => void;
  /** Where the HTTP client reads proxy settings, when it makes its own. */
  env?: NodeJS.ProcessEnv;
  /** Wall clock, only to refuse a grant whose expiry is absurd; Date.now by default. */
  wallNow?: () => number;
  /** Where this face takes the key from, for a refusal's message ("the 'key' input or LEASE_GATE_KEY"). */
  keyHint?: string | undefined;
}

export interface RetryEvent {
  error: string;
  attempt: number;
  /** The plane's HTTP status when it answered (5xx, 429, 408); undefined when it could not be reached. */
  status?: number | undefined;
  /** How much longer transient failures will be retried. */
  retryForMs: number;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Monotonic time after which transient failures are no longer retried. */
  retryUntilMs?: number | undefined;
  /** Ask the plane to hold a lease request up to this many seconds (RFC 7240 `Prefer: wait`). */
  waitSeconds?: number | undefined;
}

export interface PlaneClient {
  readonly apiUrl: string;
  /** Per request; a `Prefer: wait` must stay below it. */
  readonly requestTimeoutMs: number;
  lease(req: LeaseRequest, options?: CallOptions): Promise<LeaseAnswer>;
  release(req: LeaseRequest, options?: CallOptions): Promise<ReleaseAnswer>;
  status(resource: string, options?: CallOptions): Promise<Lease | null>;
  /** The lease and, from the bundled kernel, the freeze in force (undefined from a plane that names none). */
  statusOf(
    resource: string,
    options?: CallOptions,
  ): Promise<{ lease: Lease | null; frozen: FreezeStatus | undefined }>;
  /**
   * One watch on our own lease, held by the plane up to `waitSeconds`: ended,
   * still held, or unsupported (a plane without the route). Not retried.
   */
  watch(req: LeaseRequest & { leaseId: string }, options?: CallOptions): Promise<WatchAnswer>;
  revoke(
    resource: string,
    reason: string,
    adminKey: string,
    options?: CallOptions,
    /** The operator's name, recorded on the revoke's ledger entry as `operator:NAME`. */
    by?: string,
  ): Promise<{ revoked: boolean; leaseId?: string | undefined; holder?: string | undefined }>;
  /** The bundled kernel's freeze (admin key): `until` or `for` milliseconds, or neither. */
  freeze(
    request: { resource: string; reason: string; untilMs?: number; forMs?: number; by?: string },
    adminKey: string,
    options?: CallOptions,
  ): Promise<{ until: number | null; changed: boolean }>;
  /** `by`: the operator's name, for the ledger (OPERATOR_NAME_PATTERN). */
  unfreeze(
    resource: string,
    adminKey: string,
    options?: CallOptions,
    by?: string,
  ): Promise<{ changed: boolean }>;
  /** The bundled kernel's break-glass (admin key): `actorDid` may pass a freeze once. */
  breakGlass(
    request: { resource: string; actorDid: string; reason: string; forMs?: number; by?: string },
    adminKey: string,
    options?: CallOptions,
  ): Promise<BreakGlassAnswer>;
  /**
   * A second operator approves it: the kernel's approver key with `by`, or an approver's
   * OIDC ID token without it (the kernel names it from the token).
   */
  approveBreakGlass(
    request: { resource: string; actorDid: string; by?: string },
    approverKey: string,
    options?: CallOptions,
  ): Promise<BreakGlassAnswer>;
  /** An operator withdraws the unused break-glass (admin key); only `actorDid`'s, when given. */
  withdrawBreakGlass(
    request: { resource: string; actorDid?: string; by?: string },
    adminKey: string,
    options?: CallOptions,
  ): Promise<BreakGlassAnswer>;
  close(): Promise<void>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Transient failures are retried this long unless the caller says otherwise. */
export const DEFAULT_RETRY_WINDOW_MS = 30_000;
/** A refusal's status is undocumented: the body decides for these. */
const BODY_DECIDES = new Set([409, 423]);
/** A plane without the watch route: "no watch here", not an error. */
const NO_WATCH = new Set([404, 405]);
/** How long giving back a broken grant is retried. */
const GIVE_BACK_MS = 5_000;
/** A frozen resource that names no back-off is asked again this often. */
const FROZEN_POLL_MS = 5_000;

interface RawAnswer {
  status: number;
  body: unknown;
  preferenceApplied: boolean;
  /** The answer's Date header: the plane's clock, whole seconds. */
  dateMs: number | undefined;
}

type Check = <T>(
  schema: { safeParse(v: unknown): SafeResult<T> },
  raw: RawAnswer,
  call: string,
) => T;
type SafeResult<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };

/** Stands for "the token `bearer` gives now" where a call takes its credential. */
const FRESH_TOKEN = '\0fresh-token';

export function createPlaneClient(options: PlaneClientOptions): PlaneClient {
  const clock = options.clock ?? systemClock;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const wallNow = options.wallNow ?? Date.now;
  const policy = options.retry ?? DEFAULT_RETRY;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const ownHttp = !options.http;
  const http =
    options.http ??
    createHttpClient({ headersTimeoutMs: timeoutMs, ...(options.env ? { env: options.env } : {}) });

  async function send(
    method: 'GET' | 'POST',
    path: string,
    payload: unknown,
    call: CallOptions,
    bearer: string | undefined,
  ): Promise<RawAnswer> {
    const url = options.apiUrl + path;
    const name = `[${method}] "${url}"`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    let credential = bearer;
    if (bearer === FRESH_TOKEN) {
      try {
        credential = await options.bearer!();
      } catch (error) {
        // The token service may be down a moment: retried like the plane itself.
        const why = causeText(error).slice(0, 200);
        throw new TransientError(`${name}: could not get an OIDC token (${why})`, {
          call: name,
          cause: error,
        });
      }
    }
    if (credential) headers.authorization = `Bearer ${credential}`;
    const wait = call.waitSeconds && call.waitSeconds >= 1 ? Math.floor(call.waitSeconds) : 0;
    if (wait) headers.prefer = `wait=${wait}`;
    let response: HttpAnswer;
    try {
      response = await http.send({
        method,
        url,
        headers,
        body: payload === undefined ? undefined : JSON.stringify(payload),
        signal: call.signal,
        timeoutMs: timeoutMs,
      });
    } catch (error) {
      if (call.signal?.aborted) throw new CancelledError();
      const why =
        error instanceof HttpError ? error.message.slice(name.length + 2) : causeText(error);
      throw new TransientError(`${name}: ${why}`, { call: name, cause: error });
    }
    const { status, text } = response;
    const statusText = `${status} ${STATUS_CODES[status] ?? ''}`.trim();
    const body = parseJson(text);
    if (status === 401 || status === 403) {
      // The plane's own words first (escaped, one line): a kernel says what it wanted.
      const said = bodyMessage(body);
      const sent = options.bearer
        ? 'the OIDC token sent'
        : options.key
          ? 'the key'
          : 'the call: no key was sent';
      const hint = options.keyHint ?? 'LEASE_GATE_KEY (or INTRAMEDIAL_KEY for the hosted plane)';
      throw new KeyRefusedError(
        `${name}: ${statusText}${said ? ` (${said})` : ''}. The plane refused ${sent}; check ${hint}.`,
        { call: name, status, said },
      );
    }
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfter = parseRetryAfter(headerValue(response.headers['retry-after']), Date.now());
      const detail = bodyMessage(body);
      throw new TransientError(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, {
        call: name,
        status,
        retryAfterMs: retryAfter,
      });
    }
    if ((status < 200 || status >= 300) && !(path === LEASE_PATH && BODY_DECIDES.has(status))) {
      const detail = bodyMessage(body);
      throw new RequestRejectedError(`${name}: ${statusText}${detail ? ` (${detail})` : ''}`, {
        call: name,
        status,
      });
    }
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

  async function withRetries<T>(attempt: () => Promise<T>, call: CallOptions): Promise<T> {
    const first = clock.now();
    const until = call.retryUntilMs ?? first + DEFAULT_RETRY_WINDOW_MS;
    for (let n = 0; ; n += 1) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof TransientError)) throw error;
        const wait = nextRetryMs(policy, n, error.retryAfterMs, until - clock.now(), random);
        if (wait === undefined) {
          throw new PlaneUnavailableError(
            `${error.message} — still failing after ${n + 1} attempt(s) over ${Math.round((clock.now() - first) / 1_000)} s; the plane looks unavailable`,
            { call: error.call, status: error.status },
          );
        }
        options.onRetry?.({
          error: error.message,
          attempt: n + 1,
          status: error.status,
          retryForMs: Math.max(0, Math.round(until - clock.now())),
        });
        await sleep(wait, call.signal);
        if (call.signal?.aborted) throw new CancelledError();
      }
    }
  }

  const check: Check = (schema, raw, call) => {
    const parsed = schema.safeParse(raw.body);
    if (parsed.success) return parsed.data;
    throw new ContractError(
      `${call}: the answer does not match the plane's contract: ${describeIssues(parsed.error)}`,
      { call, status: raw.status },
    );
  };

  const key = options.bearer ? FRESH_TOKEN : options.key || undefined;
  const post = (path: string, payload: unknown, call: CallOptions, bearer = key) =>
    withRetries(() => send('POST', path, payload, call, bearer), call);
  const name = (method: string, path: string) => `[${method}] "${options.apiUrl}${path}"`;

  /** Release by (resource, own DID), bounded, never throwing: true when the plane answered it. */
  async function giveBack(req: LeaseRequest): Promise<boolean> {
    try {
      const payload = { resource: req.resource, actorDid: req.actorDid };
      const raw = await post(RELEASE_PATH, payload, { retryUntilMs: clock.now() + GIVE_BACK_MS });
      return releaseAnswerSchema.safeParse(raw.body).success;
    } catch {
      return false;
    }
  }

  const statusOf: PlaneClient['statusOf'] = async (resource, call = {}) => {
    const path = `${LEASE_PATH}?resource=${encodeURIComponent(resource)}`;
    const plain = { ...call, waitSeconds: undefined };
    const raw = await withRetries(() => send('GET', path, undefined, plain, key), plain);
    const answer = check(statusAnswerSchema, raw, name('GET', path));
    const frozen = answer.frozen
      ? {
          by: clipText(answer.frozen.by, 200) ?? '',
          reason: clipText(answer.frozen.reason) ?? '',
          untilMs: answer.frozen.until,
        }
      : undefined;
    return { lease: answer.lease, frozen };
  };

  return {
    apiUrl: options.apiUrl,
    requestTimeoutMs: timeoutMs,

    async lease(req, call = {}) {
      const raw = await post(LEASE_PATH, leaseBody(req), call);
      const where = name('POST', LEASE_PATH);
      if (field(raw.body, 'ok') !== true) return interpretLease(raw, where, check);
      const parsed = grantedSchema.safeParse(raw.body);
      const broken: GrantProblem | undefined = parsed.success
        ? grantProblem(parsed.data.lease, req, raw.dateMs ?? wallNow())
        : {
            field: fieldOf(parsed.error),
            problem: `does not match the plane's contract: ${describeIssues(parsed.error)}`,
          };
      if (parsed.success && !broken) {
        // Information only: a plane that omits it, or sends one we cannot read, leaves the check undone.
        const previous = deploySchema.safeParse(field(raw.body, 'previous'));
        return {
          kind: 'granted',
          lease: parsed.data.lease,
          preferenceApplied: raw.preferenceApplied,
          ...(raw.dateMs === undefined ? {} : { planeDateMs: raw.dateMs }),
          ...(previous.success && previous.data ? { previous: previous.data } : {}),
        };
      }
      // A broken plane: whatever it granted is given back by (resource, own DID), never believed.
      const gaveBack = await giveBack(req);
      throw new BrokenGrantError(
        `${where}: the plane granted a lease that is not ours to believe: ${broken!.field} ${broken!.problem}. ${gaveBack ? 'It was given back' : 'Giving it back failed (it lapses on its own)'} by (resource, own DID); the plane looks broken.`,
        { call: where, status: raw.status, field: broken!.field, gaveBack },
      );
    },

    async release(req, call = {}) {
      const payload: Record<string, unknown> = { resource: req.resource, actorDid: req.actorDid };
      if (req.outdated) payload.outdated = true;
      const raw = await post(RELEASE_PATH, payload, { ...call, waitSeconds: undefined });
      const answer = check(releaseAnswerSchema, raw, name('POST', RELEASE_PATH));
      return { released: answer.releasedIds.length > 0, releasedIds: answer.releasedIds };
    },

    async status(resource, call = {}) {
      return (await statusOf(resource, call)).lease;
    },

    statusOf,

    async watch(req, call = {}) {
      const payload = { resource: req.resource, actorDid: req.actorDid, leaseId: req.leaseId };
      let raw: RawAnswer;
      try {
        raw = await send('POST', WATCH_PATH, payload, call, key);
      } catch (error) {
        if (error instanceof RequestRejectedError && NO_WATCH.has(error.status ?? 0))
          return { kind: 'unsupported' };
        throw error;
      }
      const answer = check(watchAnswerSchema, raw, name('POST', WATCH_PATH));
      if (!answer.ended) return { kind: 'held' };
      return {
        kind: 'ended',
        reason: clipText(answer.reason, 200) ?? 'unknown',
        endedAtMs: answer.endedAtMs,
        message: clipText(answer.message),
        holder: answer.holder,
        ...(answer.by ? { by: clipText(answer.by, 200) } : {}),
      };
    },

    async revoke(resource, reason, adminKey, call = {}, by) {
      const raw = await post(
        REVOKE_PATH,
        by ? { resource, reason, by } : { resource, reason },
        { ...call, waitSeconds: undefined },
        adminKey,
      );
      const answer = check(revokeAnswerSchema, raw, name('POST', REVOKE_PATH));
      return {
        revoked: answer.revoked,
        leaseId: answer.leaseId ?? undefined,
        holder: answer.holder ?? undefined,
      };
    },

    async freeze(request, adminKey, call = {}) {
      const raw = await post(FREEZE_PATH, request, { ...call, waitSeconds: undefined }, adminKey);
      const answer = check(freezeAnswerSchema, raw, name('POST', FREEZE_PATH));
      return { until: answer.until ?? null, changed: answer.changed };
    },

    async unfreeze(resource, adminKey, call = {}, by) {
      const plain = { ...call, waitSeconds: undefined };
      const raw = await post(UNFREEZE_PATH, by ? { resource, by } : { resource }, plain, adminKey);
      return { changed: check(freezeAnswerSchema, raw, name('POST', UNFREEZE_PATH)).changed };
    },

    async breakGlass(request, adminKey, call = {}) {
      const plain = { ...call, waitSeconds: undefined };
      const raw = await post(BREAK_GLASS_PATH, request, plain, adminKey);
      return check(breakGlassAnswerSchema, raw, name('POST', BREAK_GLASS_PATH));
    },

    async approveBreakGlass(request, approverKey, call = {}) {
      const plain = { ...call, waitSeconds: undefined };
      const raw = await post(APPROVE_BREAK_GLASS_PATH, request, plain, approverKey);
      return check(breakGlassAnswerSchema, raw, name('POST', APPROVE_BREAK_GLASS_PATH));
    },

    async withdrawBreakGlass(request, adminKey, call = {}) {
      const plain = { ...call, waitSeconds: undefined };
      const raw = await post(WITHDRAW_BREAK_GLASS_PATH, request, plain, adminKey);
      return check(breakGlassAnswerSchema, raw, name('POST', WITHDRAW_BREAK_GLASS_PATH));
    },

    async close() {
      if (ownHttp) await http.close();
    },
  };
}

/** A refusal (`ok` is not true) read as what it means for a waiter. */
function interpretLease(
  raw: RawAnswer,
  call: string,
  check: Check,
): Exclude<LeaseAnswer, { kind: 'granted' }> {
  const refusal = check(otherRefusalSchema, raw, call);
  if (refusal.reason === 'lease_held') {
    const held = check(heldSchema, raw, call);
    return {
      kind: 'held',
      holder: held.holder,
      waitMs: held.stampede.waitMs,
      reserved: held.reserved === true,
      ...(held.position === undefined ? {} : { position: Math.floor(held.position) }),
      ...(held.etaMs === undefined ? {} : { etaMs: held.etaMs }),
      ...(held.overdueMs === undefined ? {} : { overdueMs: held.overdueMs }),
      preferenceApplied: raw.preferenceApplied,
    };
  }
  if (refusal.reason === 'frozen') {
    const frozen = check(frozenSchema, raw, call);
    return {
      kind: 'frozen',
      message: clipText(frozen.message) || 'frozen by an operator',
      untilMs: frozen.until ?? undefined,
      waitMs: frozen.stampede?.waitMs ?? FROZEN_POLL_MS,
      position: frozen.position,
      preferenceApplied: raw.preferenceApplied,
    };
  }
  if (refusal.reason === 'revoked') {
    const revoked = check(revokedSchema, raw, call);
    return {
      kind: 'revoked',
      holder: revoked.holder,
      message: clipText(revoked.message) || 'revoked by an operator',
      ...(revoked.by ? { by: clipText(revoked.by, 200) } : {}),
    };
  }
  if (refusal.reason === 'superseded') {
    return { kind: 'superseded', by: clipText(check(supersededSchema, raw, call).by, 2048)! };
  }
  return {
    kind: 'refused',
    reason: clipText(refusal.reason, 200)!,
    message: clipText(refusal.message),
  };
}

function fieldOf(error: { issues: ReadonlyArray<{ path: PropertyKey[] }> }): string {
  const path = error.issues[0]?.path ?? [];
  return path.length ? path.map(String).join('.') : '(body)';
}

/** The documented pair, plus the deploy's extension fields when the gate knows them. */
function leaseBody(req: LeaseRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { resource: req.resource, actorDid: req.actorDid };
  if (req.deploy) body.deploy = req.deploy;
  if (req.queue) body.queue = req.queue;
  return body;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** One field of a JSON answer, still unchecked: the caller's schema or type test reads it. */
function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && name in body
    ? Object.getOwnPropertyDescriptor(body, name)?.value
    : undefined;
}

function bodyMessage(body: unknown): string | undefined {
  const message = field(body, 'message');
  if (typeof message === 'string') return clipText(message, 300);
  const reason = field(body, 'reason');
  if (typeof reason === 'string') return clipText(reason, 100);
  return undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
