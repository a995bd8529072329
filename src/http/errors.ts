import { LeaseGateError } from '../errors.js';

export { LeaseGateError };

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
    cause?: unknown,
  ) {
    super(message, { code: `http.${failure}`, ...(cause === undefined ? {} : { cause }) });
  }
}
