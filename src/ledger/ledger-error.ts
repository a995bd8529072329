/** A ledger that cannot be appended to, sealed or read back as asked. */
export class LedgerError extends Error {
  override name = 'LedgerError';
}
