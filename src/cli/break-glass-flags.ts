import { LeaseRefusedError } from '../gate/wait.js';
import { untrusted } from '../lease/escape.js';
import { KeyRefusedError } from '../plane/errors.js';
import { DID_FORM, isDid } from '../plane/schema.js';
import { UsageError } from './options.js';

/** What the break-glass commands (open, approve, cancel) share: the agent, the key, a refusal. */

export function agentOf(raw: string | undefined, command: string): string {
  if (raw === undefined || !isDid(raw)) {
    throw new UsageError(
      raw === undefined
        ? `${command} needs --agent DID: the job to let through (the console's queue lists each waiter's DID).`
        : `Invalid --agent '${untrusted(raw, 80)}'. Expected ${DID_FORM}.`,
    );
  }
  return raw;
}

export function keyOf(env: NodeJS.ProcessEnv, name: string, command: string): string {
  const key = env[name] ?? '';
  if (!key) throw new UsageError(`${command} needs the key in ${name}.`);
  return key;
}

export function keyRefused(error: unknown, name: string): unknown {
  if (!(error instanceof KeyRefusedError)) return error;
  return new LeaseRefusedError({
    reason: 'key refused',
    // The kernel's reason (escaped by the client) tells a wrong key from a sub it will not take.
    message: `The plane refused the key (${error.status}${error.said ? `: ${error.said}` : ''}): check ${name}.`,
  });
}
