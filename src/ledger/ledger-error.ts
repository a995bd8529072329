import { LeaseGateError, type CauseOptions } from '../errors.js';

/** A ledger that cannot be appended to, sealed or read back as asked. */
export class LedgerError extends LeaseGateError<'ledger' | 'ledger_lines_not_loaded'> {
  override name = 'LedgerError';
  /** `code`: only for its subclasses (ledger_lines_not_loaded). */
  constructor(
    message: string,
    options: CauseOptions & { code?: 'ledger' | 'ledger_lines_not_loaded' } = {},
  ) {
    super(message, { ...options, code: options.code ?? 'ledger' });
  }
}
