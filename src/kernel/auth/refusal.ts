import { causeOf, LeaseGateError, type CauseOptions } from '../../errors.js';

/**
 * A credential refused (401), a caller acting beyond its credential (403
 * `not_your_did`, `not_allowed`), or an issuer that cannot be reached (503):
 * answered `{ ok: false, reason, message }`.
 */
export class AuthRefusal extends LeaseGateError<'auth_refusal'> {
  override name = 'AuthRefusal';
  readonly status: 401 | 403 | 503;
  /** The answer's `reason` (`unauthorized`, `not_your_did`, …): the wire's word for the kind. */
  readonly reason: string;
  constructor(
    message: string,
    options: CauseOptions & { status: 401 | 403 | 503; reason: string },
  ) {
    super(message, { ...causeOf(options.cause), code: 'auth_refusal' });
    this.status = options.status;
    this.reason = options.reason;
  }
}
