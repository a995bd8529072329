import { DURATION_FORM, parseDuration } from '../gate/duration.js';
import { DID_FORM, RESOURCE_FORM, RESOURCE_PATTERN, isDid } from '../plane/schema.js';
import { badProxyVariable, PROXY_FORM } from '../http/agents.js';
import { parsePlaneUrl } from '../plane/url.js';
import { SettingsError } from './errors.js';

/** Everything a lease session needs, validated and typed; both faces build one. */
export interface Settings {
  /** What to lease, e.g. `lock:deploy/production`. */
  resource: string;
  /** The DID this session asks as. */
  actorDid: string;
  /** The plane's origin without a trailing slash; for a dry run, replaced by the local kernel's. */
  apiUrl: string;
  /** The plane key; empty only for a keyless local kernel or with `bearer`. Never logged or saved. */
  key: string;
  /** A fresh Bearer token for each call (an OIDC ID token), instead of `key`. Never logged or saved. */
  bearer?: (() => Promise<string>) | undefined;
  /** How long to wait for a held lease; 0 asks once. */
  waitTimeoutMs: number;
  /** `fail` on timeout, or `skip`: go on without the lease. */
  onTimeout: 'fail' | 'skip';
  /** Keep the lease alive until released. */
  keepAlive: boolean;
  /** Use a bundled local kernel instead of the plane. */
  dryRun: boolean;
}

/** A raw value and where it came from, so an error can name it: `input 'api-url'`, `--api-url`, `INTRAMEDIAL_API_URL`. */
export interface Given {
  value: string;
  from: string;
}

export type RawSettings = Record<Exclude<keyof Settings, 'bearer'>, Given>;

/** Where clients read the plane key: ours first, then the hosted plane's documented name. */
export const KEY_ENV = 'LEASE_GATE_KEY';
export const HOSTED_KEY_ENV = 'INTRAMEDIAL_KEY';

/** The plane key from the environment, and the variable it came from. */
export function keyFromEnv(env: Record<string, string | undefined>): {
  value: string;
  from: string;
} {
  const ours = (env[KEY_ENV] ?? '').trim();
  if (ours) return { value: ours, from: KEY_ENV };
  return { value: (env[HOSTED_KEY_ENV] ?? '').trim(), from: HOSTED_KEY_ENV };
}
export const API_URL_FORM =
  'an https:// origin without a path, query or fragment, such as https://api.intramedial.com (plain http:// only for localhost or 127.0.0.1)';

export function invalid(given: Given, expected: string): SettingsError {
  const shown = given.value.slice(0, 80).replace(/[\r\n]/g, ' ');
  return new SettingsError(`Invalid ${given.from}: '${shown}'. Expected ${expected}.`);
}

function readBoolean(given: Given): boolean {
  const value = given.value.trim();
  if (/^(true|True|TRUE)$/.test(value)) return true;
  if (/^(false|False|FALSE)$/.test(value)) return false;
  throw invalid(given, "'true' or 'false'");
}

/**
 * Raw values → Settings, or a SettingsError before anything is sent anywhere.
 * `keyRequired`: the action needs a key unless it is a dry run; the CLI needs
 * one for anything but a plane on loopback.
 */
export function buildSettings(
  raw: RawSettings,
  keyRequired: 'unless-dry-run' | 'unless-loopback' | 'never',
): Settings {
  const resource = raw.resource.value.trim();
  if (!RESOURCE_PATTERN.test(resource)) throw invalid(raw.resource, RESOURCE_FORM);

  const actorDid = raw.actorDid.value.trim();
  if (!isDid(actorDid)) throw invalid(raw.actorDid, DID_FORM);

  const url = parsePlaneUrl(raw.apiUrl.value.trim());
  // The client adds /api/v1/…: a path here would be sent twice (/api/v1/api/v1/…).
  if (!url.ok || new URL(url.url).pathname !== '/') throw invalid(raw.apiUrl, API_URL_FORM);

  const waitTimeoutMs = parseDuration(raw.waitTimeoutMs.value);
  if (waitTimeoutMs === undefined)
    throw invalid(raw.waitTimeoutMs, `${DURATION_FORM}, at most 24h`);

  const onTimeout = raw.onTimeout.value.trim();
  if (onTimeout !== 'fail' && onTimeout !== 'skip')
    throw invalid(raw.onTimeout, "'fail' or 'skip'");

  const keepAlive = readBoolean(raw.keepAlive);
  const dryRun = readBoolean(raw.dryRun);
  const key = raw.key.value.trim();
  const loopback = url.url.startsWith('http:');
  if (!key && keyRequired !== 'never' && !(keyRequired === 'unless-dry-run' ? dryRun : loopback)) {
    throw new SettingsError(
      keyRequired === 'unless-dry-run'
        ? // The action's `auth: auto` found neither way in: name both, and the way to try without either.
          `No plane key and no OIDC token: either set the 'key' input (or ${KEY_ENV} or ${HOSTED_KEY_ENV}) from a secret, or give the job \`permissions: id-token: write\` so it proves who it is with its GitHub OIDC token (auth: auto or oidc). To try the gate on a local kernel, use 'dry-run: true'.`
        : `No plane key: set ${KEY_ENV} (or ${HOSTED_KEY_ENV} for the hosted plane); only a local kernel on loopback may run without one.`,
    );
  }
  return { resource, actorDid, apiUrl: url.url, key, waitTimeoutMs, onTimeout, keepAlive, dryRun };
}

/**
 * A proxy variable the client could not use refused before any request, naming the
 * variable but never its value (a proxy URL may carry credentials).
 */
export function checkProxyEnv(env: NodeJS.ProcessEnv): void {
  const name = badProxyVariable(env);
  if (name) throw new SettingsError(`Invalid ${name} (value not shown). Expected ${PROXY_FORM}.`);
}
