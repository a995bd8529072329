import { LeaseGateError } from '../errors.js';

/** A ledger that cannot be appended to, sealed or read back as asked. */
export class LedgerError extends LeaseGateError {
  override name = 'LedgerError';
}
