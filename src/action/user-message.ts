import * as core from '@actions/core';
import { LeaseRefusedError } from '../gate/wait.js';
import { PlaneError } from '../plane/errors.js';
import { SettingsError } from './settings.js';

/** A message for the log: ours are written for people; anything else is named as unexpected. */
export function userMessage(error: unknown): string {
  if (
    error instanceof SettingsError ||
    error instanceof PlaneError ||
    error instanceof LeaseRefusedError
  ) {
    return error.message;
  }
  if (error instanceof Error) {
    core.debug(error.stack ?? '');
    return `Unexpected error: ${error.message}`;
  }
  return `Unexpected error: ${String(error)}`;
}
