import { LeaseGateError } from '../errors.js';

export { LeaseGateError };

/** A bad setting: the message names where the value came from and the accepted form. */
export class SettingsError extends LeaseGateError {
  override name = 'SettingsError';
}

/** A helper process (the keeper, a dry run's kernel) could not be found or did not start. */
export class HelperError extends LeaseGateError {
  override name = 'HelperError';
}
