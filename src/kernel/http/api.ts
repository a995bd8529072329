/**
 * What the kernel's HTTP face and its route modules share: a request and an answer as the app
 * sees them, the refusal every route throws, and the one body check. Its own module so the
 * route modules (freeze-routes, ledger-routes) and the app that mounts them import it, not
 * each other.
 */
import type * as z from 'zod/mini';
import '../../zod-en.js';
import { causeOf, LeaseGateError, type CauseOptions } from '../../errors.js';
import type { Principal } from '../auth/authorize.js';

/** A request as the app sees it: what the adapter read off the wire. */
export interface AppRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  /** The JSON body (POST only); rejects with an ApiRefusal for a bad one. */
  json(): Promise<unknown>;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/** JSON, plain text (a string), or JSON written piece by piece (an async iterable). */
export interface AppResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** `principal`: who `authorize` found behind the request's credential (routes that take an actorDid pass it to `mayActAs`). */
export type Route = (req: AppRequest, principal: Principal) => Promise<AppResponse>;

/** A user's mistake or a refusal: answered with `{ ok: false, reason, message }`. */
export class ApiRefusal extends LeaseGateError<'api_refusal'> {
  override name = 'ApiRefusal';
  readonly status: number;
  /** The answer's `reason` (`bad_request`, `not_found`, …): the wire's word for the kind. */
  readonly reason: string;
  constructor(message: string, options: CauseOptions & { status: number; reason: string }) {
    super(message, { ...causeOf(options.cause), code: 'api_refusal' });
    this.status = options.status;
    this.reason = options.reason;
  }
}

export function parse<T>(schema: z.ZodMiniType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  throw new ApiRefusal(`${field}: ${issue?.message ?? 'invalid'}`, {
    status: 400,
    reason: 'bad_request',
  });
}
