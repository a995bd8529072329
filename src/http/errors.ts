import { causeOf, LeaseGateError, type CauseOptions } from '../errors.js';

export type HttpFailure = 'network' | 'timeout' | 'too-large' | 'cancelled';

const CODES = {
  network: 'http_network',
  timeout: 'http_timeout',
  'too-large': 'http_too_large',
  cancelled: 'http_cancelled',
} as const satisfies Record<HttpFailure, string>;

/** The one error of the HTTP client: the exchange did not complete. */
export class HttpError extends LeaseGateError<(typeof CODES)[HttpFailure]> {
  override name = 'HttpError';
  /** What went wrong, for callers that decide on it (retry, cancel). */
  readonly failure: HttpFailure;
  /** `[METHOD] "url"`, for messages. */
  readonly call: string;
  /** What failed, without the call (`connection refused (ECONNREFUSED)`), for a sentence of the caller's own. */
  readonly detail: string;
  constructor(message: string, options: CauseOptions & { failure: HttpFailure; call: string }) {
    super(message, { ...causeOf(options.cause), code: CODES[options.failure] });
    this.failure = options.failure;
    this.call = options.call;
    this.detail = message.startsWith(`${options.call}: `)
      ? message.slice(options.call.length + 2)
      : message;
  }
}
