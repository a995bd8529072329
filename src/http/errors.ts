/**
 * The one base of every error lease-gate means a person to read: its message is
 * written for them (what failed, what to do), so the faces print it as it is,
 * on one line, and never a stack.
 */
export class LeaseGateError extends Error {
  override name = 'LeaseGateError';
}

export type HttpFailure = 'network' | 'timeout' | 'too-large' | 'cancelled';

/** The one error of the HTTP client: the exchange did not complete. */
export class HttpError extends LeaseGateError {
  override name = 'HttpError';
  constructor(
    message: string,
    /** What went wrong, for callers that decide on it (retry, cancel). */
    readonly failure: HttpFailure,
    /** `[METHOD] "url"`, for messages. */
    readonly call: string,
  ) {
    super(message);
  }
}
