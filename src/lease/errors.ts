import { LeaseGateError } from '../http/errors.js';

export { LeaseGateError };

/** A bad setting: the message names where the value came from and the accepted form. */
export class SettingsError extends LeaseGateError {
  override name = 'SettingsError';
}

/** A helper process (the keeper, a dry run's kernel) could not be found or did not start. */
export class HelperError extends LeaseGateError {
  override name = 'HelperError';
}

/** A message for a person: ours as written, anything else named as unexpected (one line). */
export function messageOf(error: unknown): string {
  if (error instanceof LeaseGateError) return error.message;
  const text = error instanceof Error ? error.message : String(error);
  return `Unexpected error: ${text.split('\n')[0]}`;
}
