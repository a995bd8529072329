import { randomBytes } from 'node:crypto';
import { deriveActorDid, runContextFromEnv } from '../lease/did.js';
import { DEFAULT_AUDIENCE, cachedToken, runnerCanIssue } from '../lease/oidc-token.js';
import { SettingsError } from '../lease/errors.js';
import {
  buildSettings,
  checkProxyEnv,
  keyFromEnv,
  type Given,
  type Settings,
} from '../lease/settings.js';
import type { ActionContext } from './context.js';
import { readDeployOrder, type DeployOrderSettings } from './deploy-settings.js';
import { INPUTS, inputOrDefault, type InputName } from './io.js';

/** The action's settings: the session's, plus its GitHub surfaces. */
export interface ActionSettings extends Settings, DeployOrderSettings {
  /** For the commit status and the holder's run; empty means no GitHub call. Never logged. */
  githubToken: string;
  /** The commit status context; empty turns statuses off. */
  statusContext: string;
  /** How this job proves who it is: the key, its own OIDC token, or nothing (a dry run). */
  auth: AuthMode;
  /** With `auth` 'oidc': the audience, which the keeper asks its own tokens for. */
  oidcAudience?: string | undefined;
}

export type AuthMode = 'key' | 'oidc' | 'none';

/**
 * The `auth` input: 'key', 'oidc', or 'auto' (a key if one is given, else an
 * OIDC token when the job may ask for one, else none: the key check then fails closed).
 */
export function readAuth(ctx: Pick<ActionContext, 'getInput' | 'env'>): {
  mode: AuthMode;
  audience: string;
} {
  const given = ctx.getInput(INPUTS.auth).trim() || 'auto';
  const audience = ctx.getInput(INPUTS.oidcAudience).trim() || DEFAULT_AUDIENCE;
  if (!['auto', 'key', 'oidc'].includes(given)) {
    throw new SettingsError(
      `Invalid input '${INPUTS.auth}': '${given.slice(0, 40)}'. Expected 'auto', 'key' or 'oidc'.`,
    );
  }
  if (!/^[\x21-\x7e]{1,200}$/.test(audience)) {
    throw new SettingsError(
      `Invalid input '${INPUTS.oidcAudience}': '${audience.slice(0, 60)}'. Expected 1 to 200 printable characters without spaces.`,
    );
  }
  const canIssue = runnerCanIssue(ctx.env);
  if (given === 'oidc' && !canIssue) {
    throw new SettingsError(
      `Input '${INPUTS.auth}' is 'oidc', but this job cannot ask for an OIDC token (ACTIONS_ID_TOKEN_REQUEST_URL is not set): give the job \`permissions: id-token: write\`.`,
    );
  }
  if (given === 'oidc') return { mode: 'oidc', audience };
  if (given === 'key' || readKey(ctx)) return { mode: readKey(ctx) ? 'key' : 'none', audience };
  return { mode: canIssue ? 'oidc' : 'none', audience };
}

/** Each call's Bearer: the job's OIDC token, asked for again shortly before it expires (masked by getIDToken). */
export function oidcBearer(ctx: Pick<ActionContext, 'getIDToken'>, audience: string) {
  return cachedToken(() => ctx.getIDToken(audience));
}

/** Reads the plane key: the `key` input, else LEASE_GATE_KEY, else INTRAMEDIAL_KEY. */
export function readKey(ctx: Pick<ActionContext, 'getInput' | 'env'>): string {
  return ctx.getInput(INPUTS.key).trim() || keyFromEnv(ctx.env).value;
}

/** The value of `status-context` that turns commit statuses off (empty means the default). */
export const STATUSES_OFF = 'off';
/** Words someone may write meaning "off", refused so the context is not silently named that. */
const LOOKS_LIKE_OFF = /^(false|no|none|disabled?|0)$/i;

/**
 * `status-context` with `{resource}` replaced: empty is the default context, like
 * every input (the runner passes '' for an input given as ''); `off` turns commit
 * statuses off, and only them (the token still names the holder's run and feeds the
 * outdated check). Returns '' for off.
 */
export function readStatusContext(ctx: Pick<ActionContext, 'getInput'>, resource: string): string {
  const given = inputOrDefault((n) => ctx.getInput(n), INPUTS.statusContext);
  if (given === STATUSES_OFF) return '';
  const context = given.replaceAll('{resource}', resource);
  if (context.length > 255 || /[\r\n]/.test(context) || LOOKS_LIKE_OFF.test(context)) {
    throw new SettingsError(
      `Invalid input '${INPUTS.statusContext}': '${context.slice(0, 60).replace(/[\r\n]+/g, ' ')}'. Expected a commit status context of one line, at most 255 characters ({resource} is replaced by the resource), or '${STATUSES_OFF}' to turn commit statuses off.`,
    );
  }
  return context;
}

/** Inputs → settings; every message names the input and the accepted form. */
export function readSettings(
  ctx: ActionContext,
  nonce = randomBytes(4).toString('hex'),
): ActionSettings {
  const given = (name: InputName): Given => ({
    value: inputOrDefault((n) => ctx.getInput(n), name),
    from: `input '${name}'`,
  });
  const didInput = given(INPUTS.actorDid);
  if (!didInput.value.trim()) {
    const run = runContextFromEnv(ctx.env);
    if (!run) {
      throw new SettingsError(
        `Input '${INPUTS.actorDid}' is empty and cannot be derived: GITHUB_REPOSITORY, GITHUB_RUN_ID and GITHUB_JOB are not set (or not valid). Give a DID of the form did:<method>:<id>.`,
      );
    }
    didInput.value = deriveActorDid(run, nonce);
  }
  checkProxyEnv(ctx.env);
  const { mode, audience } = readAuth(ctx);
  const keyInput = given(INPUTS.key);
  if (!keyInput.value.trim()) keyInput.value = mode === 'key' ? readKey(ctx) : '';
  const settings = buildSettings(
    {
      resource: given(INPUTS.resource),
      actorDid: didInput,
      apiUrl: given(INPUTS.apiUrl),
      key: keyInput,
      waitTimeoutMs: given(INPUTS.waitTimeout),
      onTimeout: given(INPUTS.onTimeout),
      keepAlive: given(INPUTS.keepAlive),
      dryRun: given(INPUTS.dryRun),
    },
    mode === 'oidc' ? 'never' : 'unless-dry-run',
  );
  const statusContext = readStatusContext(ctx, settings.resource);
  return {
    ...settings,
    ...readDeployOrder(ctx),
    githubToken: ctx.getInput(INPUTS.githubToken).trim(),
    statusContext,
    auth: settings.dryRun ? 'none' : mode,
    ...(mode === 'oidc' && !settings.dryRun
      ? { bearer: oidcBearer(ctx, audience), oidcAudience: audience }
      : {}),
  };
}
