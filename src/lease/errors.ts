import { LeaseGateError, type CauseOptions } from '../errors.js';

/** A bad setting: the message names where the value came from and the accepted form. */
export class SettingsError extends LeaseGateError<'settings'> {
  override name = 'SettingsError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'settings' });
  }
}

/** A helper process (the keeper, a dry run's kernel) could not be found or did not start. */
export class HelperError extends LeaseGateError<'helper'> {
  override name = 'HelperError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'helper' });
  }
}
