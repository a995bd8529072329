import { LeaseGateError, type CauseOptions } from '../../errors.js';

/** A store that cannot read or persist: the kernel answers 503 and leaves memory unchanged. */
export class StoreError extends LeaseGateError<'store' | 'store_schema_too_new'> {
  override name = 'StoreError';
  /** `code`: only for its subclasses (store_schema_too_new). */
  constructor(
    message: string,
    options: CauseOptions & { code?: 'store' | 'store_schema_too_new' } = {},
  ) {
    super(message, { ...options, code: options.code ?? 'store' });
  }
}

/** A change could not be made durable; nothing changed. Answered 503 store_unavailable. */
export class StoreUnavailableError extends LeaseGateError<
  'store_unavailable' | 'store_outcome_unknown'
> {
  override name = 'StoreUnavailableError';
  /** `code`: only for its subclasses (store_outcome_unknown). */
  constructor(
    message: string,
    options: CauseOptions & { code?: 'store_unavailable' | 'store_outcome_unknown' } = {},
  ) {
    super(message, { ...options, code: options.code ?? 'store_unavailable' });
  }
}

/**
 * The kernel must not serve on this state: another kernel holds it, or its log
 * is not the history it signed. One line for the operator (the CLI exits 2).
 */
export class StartRefusedError extends LeaseGateError<'start_refused' | 'state_locked'> {
  override name = 'StartRefusedError';
  /** `code`: only for its subclasses (state_locked). */
  constructor(
    message: string,
    options: CauseOptions & { code?: 'start_refused' | 'state_locked' } = {},
  ) {
    super(message, { ...options, code: options.code ?? 'start_refused' });
  }
}
