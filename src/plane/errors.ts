import { causeOf, LeaseGateError, type CauseOptions } from '../errors.js';

type PlaneCode =
  | 'plane_key_refused'
  | 'plane_request_rejected'
  | 'plane_contract'
  | 'plane_broken_grant'
  | 'plane_transient'
  | 'plane_unavailable';

/** What every plane failure names: the call, and the HTTP status when one came. */
export interface PlaneErrorOptions extends CauseOptions {
  /** `[METHOD] "url"`, for messages and for a later error about the same call. */
  call: string;
  status?: number | undefined;
}

/** Typed failures of a plane call; every message says which call and what to do. */
export abstract class PlaneError<C extends PlaneCode = PlaneCode> extends LeaseGateError<C> {
  override name = 'PlaneError';
  readonly call: string;
  readonly status: number | undefined;
  constructor(message: string, code: C, options: PlaneErrorOptions) {
    super(message, { ...causeOf(options.cause), code });
    this.call = options.call;
    this.status = options.status;
  }
}

/** 401/403: the key was refused. Never retried. */
export class KeyRefusedError extends PlaneError<'plane_key_refused'> {
  override name = 'KeyRefusedError';
  /** The plane's own reason, escaped to one line, for a face that words the hint itself. */
  readonly said: string | undefined;
  constructor(message: string, options: PlaneErrorOptions & { said?: string | undefined }) {
    super(message, 'plane_key_refused', options);
    this.said = options.said;
  }
}

/** Other 4xx: our bug or bad input. Never retried. */
export class RequestRejectedError extends PlaneError<'plane_request_rejected'> {
  override name = 'RequestRejectedError';
  constructor(message: string, options: PlaneErrorOptions) {
    super(message, 'plane_request_rejected', options);
  }
}

/** The body does not match the contract; the message names the field. */
export class ContractError extends PlaneError<'plane_contract' | 'plane_broken_grant'> {
  override name = 'ContractError';
  /** `code`: only for BrokenGrantError. */
  constructor(message: string, options: PlaneErrorOptions & { code?: 'plane_broken_grant' }) {
    super(message, options.code ?? 'plane_contract', options);
  }
}

/** Network failure, request timeout, 408, 429 or 5xx (store_unavailable too): worth asking again. */
export class TransientError extends PlaneError<'plane_transient'> {
  override name = 'TransientError';
  /** The plane's Retry-After, when it named one. */
  readonly retryAfterMs: number | undefined;
  /** What looks unavailable when it goes on failing: the plane, or the OIDC token service. */
  readonly failing: string;
  constructor(
    message: string,
    options: PlaneErrorOptions & { retryAfterMs?: number | undefined; failing?: string },
  ) {
    super(message, 'plane_transient', options);
    this.retryAfterMs = options.retryAfterMs;
    this.failing = options.failing ?? 'the plane';
  }
}

/** Transient failures went on past the retry budget. */
export class PlaneUnavailableError extends PlaneError<'plane_unavailable'> {
  override name = 'PlaneUnavailableError';
  constructor(message: string, options: PlaneErrorOptions) {
    super(message, 'plane_unavailable', options);
  }
}

/** The caller's signal stopped the call. */
export class CancelledError extends LeaseGateError<'cancelled'> {
  override name = 'CancelledError';
  constructor() {
    super('cancelled', { code: 'cancelled' });
  }
}
