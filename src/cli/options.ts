import { hostname, userInfo } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { deriveActorDid, runContextFromEnv } from '../action/did.js';
import { INPUTS, KEY_ENV, type InputName } from '../action/io.js';
import { SettingsError, readSettings, type Settings } from '../action/settings.js';
import { createPlaneClient, type PlaneClient } from '../plane/client.js';

export const EXIT = { done: 0, refused: 1, usage: 2 } as const;

/** Bad command-line use: printed with the usage hint, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const PLANE_OPTIONS = {
  resource: { type: 'string' },
  'actor-did': { type: 'string' },
  'api-url': { type: 'string' },
  'wait-timeout': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * The CLI's default DID: on a GitHub runner the run's DID (the runner host tells
 * jobs apart), elsewhere this host and user. Stable across calls, so `acquire`
 * and a later `release` speak as the same agent.
 */
export function defaultCliDid(env: NodeJS.ProcessEnv): string {
  const run = runContextFromEnv(env);
  if (run) return deriveActorDid(run, hostname());
  const enc = (v: string) =>
    v.replace(
      /[^A-Za-z0-9._-]/g,
      (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`,
    );
  return `did:web:${enc(hostname())}:users:${enc(userInfo().username)}`;
}

/** Flags → Settings through the action's own validation, so messages are the same. */
export function settingsFromFlags(
  values: Partial<Record<InputName, string | boolean | undefined>>,
  env: NodeJS.ProcessEnv,
): Settings {
  const given: Partial<Record<InputName, string>> = {
    [INPUTS.resource]: 'lock:deploy/production',
    [INPUTS.actorDid]: env.LEASE_GATE_ACTOR_DID || defaultCliDid(env),
    [INPUTS.apiUrl]: env.INTRAMEDIAL_API_URL || 'https://api.intramedial.com',
    [INPUTS.waitTimeout]: '30m',
    [INPUTS.onTimeout]: 'fail',
    [INPUTS.keepAlive]: 'true',
    [INPUTS.dryRun]: 'false',
  };
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string') given[name as InputName] = value;
  }
  try {
    const settings = readSettings((name) => given[name] ?? '', env, 'cli', { keyOptional: true });
    const loopback = /^http:/.test(settings.apiUrl);
    if (!settings.key && !loopback) {
      throw new SettingsError(
        `No plane key: set ${KEY_ENV} (only a local kernel on loopback may run without one).`,
      );
    }
    return settings;
  } catch (error) {
    if (error instanceof SettingsError) throw new UsageError(error.message);
    throw error;
  }
}

export function clientFor(settings: Settings): PlaneClient {
  return createPlaneClient({ apiUrl: settings.apiUrl, key: settings.key });
}

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

export const stdio: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
