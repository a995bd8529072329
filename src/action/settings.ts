import { DURATION_FORM, parseDuration } from '../gate/duration.js';
import { DID_FORM, RESOURCE_FORM, RESOURCE_PATTERN, isDid } from '../plane/schema.js';
import { parsePlaneUrl } from '../plane/url.js';
import { deriveActorDid, runContextFromEnv } from './did.js';
import { INPUTS, KEY_ENV, type InputName } from './io.js';

/** Everything the main step needs, validated and typed. */
export interface Settings {
  /** What to lease, e.g. `lock:deploy/production`. */
  resource: string;
  /** The DID the job asks as. */
  actorDid: string;
  /** The plane's origin without a trailing slash; for a dry run, replaced by the local kernel's. */
  apiUrl: string;
  /** The plane key; empty only for a dry run. Never logged or saved. */
  key: string;
  /** How long to wait for a held lease; 0 asks once. */
  waitTimeoutMs: number;
  /** `fail` the step on timeout, or `skip`: succeed with acquired=false. */
  onTimeout: 'fail' | 'skip';
  /** Keep the lease alive until the post step. */
  keepAlive: boolean;
  /** Use the bundled local kernel instead of the plane. */
  dryRun: boolean;
  /** For the commit status and the holder's run; empty means no GitHub call. Never logged. */
  githubToken: string;
  /** The commit status context; empty turns statuses off. */
  statusContext: string;
}

/** A user error: the message names the input and the accepted form. */
export class SettingsError extends Error {
  override name = 'SettingsError';
}

export type InputReader = (name: InputName) => string;

function invalid(name: InputName, value: string, expected: string): SettingsError {
  return new SettingsError(`Invalid input '${name}': '${value}'. Expected ${expected}.`);
}

function readBoolean(read: InputReader, name: InputName): boolean {
  const value = read(name).trim();
  if (/^(true|True|TRUE)$/.test(value)) return true;
  if (/^(false|False|FALSE)$/.test(value)) return false;
  throw invalid(name, value, "'true' or 'false'");
}

/** Reads the plane key: the `key` input, else INTRAMEDIAL_KEY. */
export function readKey(read: InputReader, env: NodeJS.ProcessEnv): string {
  return read(INPUTS.key).trim() || (env[KEY_ENV] ?? '').trim();
}

/**
 * Turns the raw inputs into Settings, or throws a SettingsError before
 * anything is sent anywhere. `nonce` makes the derived DID unique per job execution;
 * `keyOptional` serves the CLI, which may talk to a keyless local kernel.
 */
export function readSettings(
  read: InputReader,
  env: NodeJS.ProcessEnv,
  nonce: string,
  { keyOptional = false } = {},
): Settings {
  const resource = read(INPUTS.resource).trim();
  if (!RESOURCE_PATTERN.test(resource)) {
    throw invalid(INPUTS.resource, resource, RESOURCE_FORM);
  }

  const givenDid = read(INPUTS.actorDid).trim();
  if (givenDid && !isDid(givenDid)) {
    throw invalid(INPUTS.actorDid, givenDid, `${DID_FORM}, or empty to derive one from the run`);
  }
  const run = runContextFromEnv(env);
  if (!givenDid && !run) {
    throw new SettingsError(
      `Input '${INPUTS.actorDid}' is empty and cannot be derived: GITHUB_REPOSITORY, GITHUB_RUN_ID and GITHUB_JOB are not set. Give a DID of the form did:<method>:<id>.`,
    );
  }
  const actorDid = givenDid || deriveActorDid(run!, nonce);

  const rawUrl = read(INPUTS.apiUrl).trim();
  const url = parsePlaneUrl(rawUrl);
  if (!url.ok) {
    throw invalid(
      INPUTS.apiUrl,
      rawUrl,
      'an https:// origin (plain http:// only for localhost or 127.0.0.1)',
    );
  }

  const rawTimeout = read(INPUTS.waitTimeout).trim();
  const waitTimeoutMs = parseDuration(rawTimeout);
  if (waitTimeoutMs === undefined)
    throw invalid(INPUTS.waitTimeout, rawTimeout, `${DURATION_FORM}, at most 24h`);

  const onTimeout = read(INPUTS.onTimeout).trim();
  if (onTimeout !== 'fail' && onTimeout !== 'skip') {
    throw invalid(INPUTS.onTimeout, onTimeout, "'fail' or 'skip'");
  }

  const keepAlive = readBoolean(read, INPUTS.keepAlive);
  const dryRun = readBoolean(read, INPUTS.dryRun);
  const key = readKey(read, env);
  if (!key && !dryRun && !keyOptional) {
    throw new SettingsError(
      `No plane key: set the '${INPUTS.key}' input or the ${KEY_ENV} environment variable from a secret (or use 'dry-run: true' to try the gate on a local kernel).`,
    );
  }

  const statusContext = read(INPUTS.statusContext).trim().replaceAll('{resource}', resource);
  if (statusContext.length > 255 || /[\r\n]/.test(statusContext)) {
    throw invalid(
      INPUTS.statusContext,
      statusContext.slice(0, 60).replace(/\r?\n/g, '\\n'),
      'one line of at most 255 characters, or empty to turn statuses off',
    );
  }
  const githubToken = read(INPUTS.githubToken).trim();

  return {
    resource,
    actorDid,
    apiUrl: url.url,
    key,
    waitTimeoutMs,
    onTimeout,
    keepAlive,
    dryRun,
    githubToken,
    statusContext,
  };
}
