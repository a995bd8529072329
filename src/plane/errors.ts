import { LeaseGateError } from '../http/errors.js';

/** Typed failures of a plane call; every message says which call and what to do. */
export class PlaneError extends LeaseGateError {
  override name = 'PlaneError';
  constructor(
    message: string,
    readonly call: string,
    readonly status?: number,
    /** `cause`: the error this one wraps, when it wraps one. */
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

/** 401/403: the key was refused. Never retried. */
export class KeyRefusedError extends PlaneError {
  override name = 'KeyRefusedError';
}

/** Other 4xx: our bug or bad input. Never retried. */
export class RequestRejectedError extends PlaneError {
  override name = 'RequestRejectedError';
}

/** The body does not match the contract; the message names the field. */
export class ContractError extends PlaneError {
  override name = 'ContractError';
}

/** Network failure, request timeout, 408, 429 or 5xx (store_unavailable too): worth asking again. */
export class TransientError extends PlaneError {
  override name = 'TransientError';
  constructor(
    message: string,
    call: string,
    status?: number,
    readonly retryAfterMs?: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, call, status, options);
  }
}

/** Transient failures went on past the retry budget. */
export class PlaneUnavailableError extends PlaneError {
  override name = 'PlaneUnavailableError';
}

/** The caller's signal stopped the call. */
export class CancelledError extends LeaseGateError {
  override name = 'CancelledError';
  constructor() {
    super('cancelled');
  }
}
