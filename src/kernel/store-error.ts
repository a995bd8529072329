import { LeaseGateError } from '../errors.js';

/** A store that cannot read or persist: the kernel answers 503 and leaves memory unchanged. */
export class StoreError extends LeaseGateError {
  override name = 'StoreError';
}

/** A change could not be made durable; nothing changed. Answered 503 store_unavailable. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/**
 * The kernel must not serve on this state: another kernel holds it, or its log
 * is not the history it signed. One line for the operator (the CLI exits 2).
 */
export class StartRefusedError extends LeaseGateError {
  override name = 'StartRefusedError';
}
