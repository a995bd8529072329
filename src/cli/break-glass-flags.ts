import { LeaseRefusedError } from '../gate/wait.js';
import { untrusted } from '../lease/escape.js';
import { KeyRefusedError } from '../plane/errors.js';
import { RUN_FORM, runPassDid } from '../plane/run-pass.js';
import { DID_FORM, isDid } from '../plane/schema.js';
import { UsageError } from './options.js';

/** What the break-glass commands (open, approve, cancel) share: whom the pass is for (an agent or a run), the key, a refusal. */

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

/**
 * The pass's DID: --agent's, or the run's for --run (every DID the action derives for that
 * run, plane/run-pass.ts); exactly one of them. `optional`: neither is allowed (a cancel).
 */
export function passDidOf(
  values: { agent?: string | undefined; run?: string | undefined },
  command: string,
  optional = false,
): string | undefined {
  if (values.agent !== undefined && values.run !== undefined)
    throw new UsageError(`${command} takes --agent DID or --run ${RUN_FORM}, not both.`);
  if (values.run === undefined) {
    if (values.agent === undefined && optional) return undefined;
    if (values.agent === undefined)
      throw new UsageError(
        `${command} needs --agent DID or --run ${RUN_FORM}: the job to let through (the console's queue lists each waiter's DID; a refused job's log names its run).`,
      );
    return agentOf(values.agent, command);
  }
  const did = runPassDid(values.run);
  if (did === undefined)
    throw new UsageError(`Invalid --run '${untrusted(values.run, 80)}'. Expected ${RUN_FORM}.`);
  return did;
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
