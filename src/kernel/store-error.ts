import { LeaseGateError } from '../errors.js';

/** A store that cannot read or persist: the kernel answers 503 and leaves memory unchanged. */
export class StoreError extends LeaseGateError {
  override name = 'StoreError';
}
