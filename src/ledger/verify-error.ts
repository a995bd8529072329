import { LeaseGateError } from '../errors.js';

/** A bundle that does not verify; the message names the first problem. */
export class BundleError extends LeaseGateError {
  override name = 'BundleError';
}
