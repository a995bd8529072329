import { constants, hostname, userInfo } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { LeaseGateError, errorMessage, type CauseOptions } from '../errors.js';
import { deriveActorDid, hostUserDid, runContextFromEnv } from '../lease/did.js';
import { SettingsError } from '../lease/errors.js';
import type { JobCi } from '../lease/ci-tokens.js';
import {
  buildSettings,
  checkProxyEnv,
  keyFromEnv,
  type Given,
  type Settings,
} from '../lease/settings.js';
import { untrusted } from '../lease/escape.js';
import { closest } from './suggest.js';
import { givenApiUrl, hostedHint } from './plane-url.js';
import { credentialOf, jobDid, type AuthFlags } from './ci-auth.js';

/** Exit codes, as --help documents them; a signal is 128 + its number. */
export const EXIT = { done: 0, refused: 1, usage: 2 } as const;

/** 128 + the signal's number, for every signal. */
export function signalExitCode(signal: NodeJS.Signals | null): number {
  return 128 + ((signal && constants.signals[signal]) || 0);
}

/** Bad command-line use: printed with the usage hint, exit 2. */
export class UsageError extends LeaseGateError<'usage'> {
  override name = 'UsageError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'usage' });
  }
}

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    const unknown = unknownFlag(error);
    if (unknown) throw new UsageError(unknownFlagMessage(unknown, options));
    // node:util's parse errors carry a code: errorMessage() gives their first line as it is.
    throw new UsageError(errorMessage(error), { cause: error });
  }
}

/** The flag node:util refused as unknown (`--statsu`, `-x`), else undefined. */
function unknownFlag(error: unknown): string | undefined {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return;
  return /^Unknown option '([^']*)'/.exec(errorMessage(error))?.[1];
}

/** "Unknown flag '--statsu'. Did you mean --status?", the guess from this command's own flags. */
function unknownFlagMessage(
  flag: string,
  options: NonNullable<ParseArgsConfig['options']>,
): string {
  const name = flag.replace(/^-+/, '').split('=')[0] ?? '';
  const guess = closest(name, Object.keys(options));
  const shown = `'${untrusted(flag, 60)}'`;
  return guess
    ? `Unknown flag ${shown}. Did you mean --${guess}?`
    : `Unknown flag ${shown}. (A command's own arguments go after '--'.)`;
}

/**
 * The CLI's default DID: on a GitHub runner the run's DID (the runner host tells
 * jobs apart), elsewhere this host and user, through the one DID encoder.
 * Stable across calls, so `acquire` and a later `release` speak as the same agent.
 */
export function defaultCliDid(env: NodeJS.ProcessEnv): string {
  const run = runContextFromEnv(env);
  if (run) return deriveActorDid(run, hostname());
  let user = env.USER || env.USERNAME || '';
  try {
    user ||= userInfo().username;
  } catch {
    user ||= 'user';
  }
  return hostUserDid(hostname(), user);
}

type PlaneFlags = AuthFlags & {
  resource?: string | undefined;
  'actor-did'?: string | undefined;
  'api-url'?: string | undefined;
  'wait-timeout'?: string | undefined;
};

/** A flag's value, else an environment variable's, else the default: each named as its source. */
function pick(
  flag: string,
  value: string | undefined,
  env: NodeJS.ProcessEnv,
  envName: string | undefined,
  fallback: string,
): Given {
  if (value !== undefined) return { value, from: `--${flag}` };
  const fromEnv = envName ? env[envName] : undefined;
  if (fromEnv) return { value: fromEnv, from: `${envName} (environment)` };
  return { value: fallback, from: `--${flag} (default)` };
}

/**
 * The CLI's settings, and where the plane URL came from, for an unreachable plane's message;
 * `ci` when the credential is the job's own token of that CI (ci-auth.ts).
 */
export type CliSettings = Settings & { apiUrlFrom: string; ci?: JobCi };

/** Where `--api-url`'s value came from, in the words the unreachable-plane line uses. */
export function apiUrlSource(values: PlaneFlags, env: NodeJS.ProcessEnv): string {
  return givenApiUrl(values['api-url'], env).source;
}

/** Flags and environment → the session's settings; messages name the flag or variable. */
export function settingsFromFlags(values: PlaneFlags, env: NodeJS.ProcessEnv): CliSettings {
  const fixed = (value: string): Given => ({ value, from: 'default' });
  const given = givenApiUrl(values['api-url'], env);
  const apiUrl: Given = { value: given.value, from: given.from };
  try {
    // An OIDC token (for a kernel started with --oidc-audience) is sent instead of the key.
    const credential = credentialOf(values, env);
    const bearer = credential?.bearer;
    checkProxyEnv(env);
    const settings = buildSettings(
      {
        resource: pick('resource', values.resource, env, undefined, 'lock:deploy/production'),
        actorDid: pick(
          'actor-did',
          values['actor-did'],
          env,
          'LEASE_GATE_ACTOR_DID',
          values['actor-did'] ?? defaultCliDid(env),
        ),
        apiUrl: apiUrl,
        key: bearer ? { value: '', from: 'an OIDC token' } : keyFromEnv(env),
        waitTimeoutMs: pick('wait-timeout', values['wait-timeout'], env, undefined, '30m'),
        onTimeout: fixed('fail'),
        keepAlive: fixed('true'),
        dryRun: fixed('false'),
      },
      bearer ? 'never' : 'unless-loopback',
    );
    const apiUrlFrom = given.source;
    if (!bearer) return { ...settings, apiUrlFrom };
    return credential.ci
      ? { ...settings, bearer, apiUrlFrom, ci: credential.ci }
      : { ...settings, bearer, apiUrlFrom };
  } catch (error) {
    // Nothing named a plane: the hosted one is meant, said with how to name another.
    if (error instanceof SettingsError)
      throw new UsageError(given.hosted ? `${error.message} ${hostedHint(false)}` : error.message, {
        cause: error,
      });
    throw error;
  }
}

/**
 * settingsFromFlags for the commands that hold a lease (acquire, release, run): on a job's own
 * token, and no DID given, the DID that token vouches for. The first token is asked for here
 * (kept for the first request), so a CI that cannot give one fails before anything is sent.
 */
export async function holderSettings(
  values: PlaneFlags,
  env: NodeJS.ProcessEnv,
): Promise<CliSettings> {
  const settings = settingsFromFlags(values, env);
  if (!settings.ci || !settings.bearer) return settings;
  if (values['actor-did'] !== undefined || env.LEASE_GATE_ACTOR_DID) return settings;
  // On a runner the default is already the run's DID, with its job, as the action's.
  if (settings.ci === 'github' && runContextFromEnv(env)) return settings;
  const did = jobDid(settings.ci, await settings.bearer(), env);
  if (!did) {
    throw new UsageError(
      `This job's OIDC token names no job of ${settings.ci} in the form lease-gate knows: give --actor-did D (the kernel accepts only a DID its token vouches for).`,
    );
  }
  return { ...settings, actorDid: did };
}

export interface Output {
  out(line: string): void;
  err(line: string): void;
  /**
   * Text for stdout with no newline added, settled once it is flushed, so a
   * long answer (`ledger export`) is written as it comes. Without it the
   * command gives its answer to `out` whole.
   */
  write?(text: string): Promise<void>;
}

export const stdio: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  write: (text) =>
    new Promise((resolve, reject) =>
      process.stdout.write(text, (error) => (error ? reject(error) : resolve())),
    ),
};
