import { LeaseGateError } from '../../http/errors.js';

/**
 * A credential refused (401), a caller acting beyond its credential (403
 * `not_your_did`, `not_allowed`), or an issuer that cannot be reached (503):
 * answered `{ ok: false, reason, message }`.
 */
export class AuthRefusal extends LeaseGateError {
  override name = 'AuthRefusal';
  constructor(
    readonly status: 401 | 403 | 503,
    readonly reason: string,
    message: string,
    /** `cause`: the error this one wraps, when it wraps one. */
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
