import { CONTROL_CHARS } from '../control-chars.js';

/**
 * Every input, output and state key of the action, typed. A contract test holds
 * action.yml to these lists, so a rename cannot drift between the two.
 */
export const INPUTS = {
  resource: 'resource',
  actorDid: 'actor-did',
  apiUrl: 'api-url',
  key: 'key',
  auth: 'auth',
  oidcAudience: 'oidc-audience',
  waitTimeout: 'wait-timeout',
  onTimeout: 'on-timeout',
  keepAlive: 'keep-alive',
  dryRun: 'dry-run',
  githubToken: 'github-token',
  statusContext: 'status-context',
  onOutdated: 'on-outdated',
  queue: 'queue',
} as const;
export type InputName = (typeof INPUTS)[keyof typeof INPUTS];

/**
 * action.yml's defaults, which the runner fills only for an input left out:
 * an explicit empty value means the default too, as in actions/checkout.
 * `github-token`'s default is a runner expression the step cannot see, so an
 * empty one means no token (no GitHub API call). A contract test holds these
 * to action.yml.
 */
export const INPUT_DEFAULTS: Record<InputName, string> = {
  resource: 'lock:deploy/production',
  'actor-did': '',
  'api-url': 'https://api.intramedial.com',
  key: '',
  'wait-timeout': '30m',
  'on-timeout': 'fail',
  'keep-alive': 'true',
  'dry-run': 'false',
  'github-token': '',
  'status-context': 'lease-gate/{resource}',
  auth: 'auto',
  'oidc-audience': 'lease-gate',
  'on-outdated': 'skip',
  queue: 'fifo',
};

/** An input's value, or its default when empty. */
export function inputOrDefault(getInput: (name: InputName) => string, name: InputName): string {
  return getInput(name).trim() || INPUT_DEFAULTS[name];
}

export const OUTPUTS = {
  acquired: 'acquired',
  leaseId: 'lease-id',
  holder: 'holder',
  expiresAtMs: 'expires-at-ms',
  waitedMs: 'waited-ms',
  actorDid: 'actor-did',
  fence: 'fence',
  outdated: 'outdated',
  liveCommit: 'live-commit',
  supersededBy: 'superseded-by',
} as const;
export type OutputName = (typeof OUTPUTS)[keyof typeof OUTPUTS];

/** Handed from main to post. Never the key. */
export const STATE = {
  resource: 'resource',
  actorDid: 'actor-did',
  apiUrl: 'api-url',
  leaseId: 'lease-id',
  expiresAtMs: 'expires-at-ms',
  grantedAtMs: 'granted-at-ms',
  waitedMs: 'waited-ms',
  fence: 'fence',
  dryRun: 'dry-run',
  kernelPid: 'kernel-pid',
  kernelDir: 'kernel-dir',
  keeperPid: 'keeper-pid',
  keeperStatus: 'keeper-status',
  /** 'none' once main knows it holds nothing (timeout, cancel, refusal); absent after a grant it may not have recorded. */
  outcome: 'outcome',
} as const;
export type StateName = (typeof STATE)[keyof typeof STATE];

/** The longest output value; a DID (512) and every lease id (128) fit. */
export const MAX_OUTPUT_LENGTH = 1_024;

/**
 * An output value as later steps read it: one line, bounded. What main sets
 * is checked already (DIDs, the grant's id, numbers); this is the last guard
 * that no plane text can ever start a line or grow without bound there.
 */
export function outputValue(value: string): string {
  // No control character reaches an output.
  const line = value.replace(CONTROL_CHARS, ' ');
  return line.length <= MAX_OUTPUT_LENGTH ? line : line.slice(0, MAX_OUTPUT_LENGTH);
}
