import { LeaseGateError, type CauseOptions } from '../errors.js';

/** A bundle that does not verify; the message names the first problem. */
export class BundleError extends LeaseGateError<'bundle'> {
  override name = 'BundleError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'bundle' });
  }
}
