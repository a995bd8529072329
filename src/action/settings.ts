import { randomBytes } from 'node:crypto';
import { deriveActorDid, runContextFromEnv } from '../lease/did.js';
import { SettingsError } from '../lease/errors.js';
import { KEY_ENV, buildSettings, type Given, type Settings } from '../lease/settings.js';
import type { ActionContext } from './context.js';
import { INPUTS, inputOrDefault, type InputName } from './io.js';

/** The action's settings: the session's, plus its GitHub surfaces. */
export interface ActionSettings extends Settings {
  /** For the commit status and the holder's run; empty means no GitHub call. Never logged. */
  githubToken: string;
  /** The commit status context; empty turns statuses off. */
  statusContext: string;
}

/** Reads the plane key: the `key` input, else INTRAMEDIAL_KEY. */
export function readKey(ctx: Pick<ActionContext, 'getInput' | 'env'>): string {
  return ctx.getInput(INPUTS.key).trim() || (ctx.env[KEY_ENV] ?? '').trim();
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
  const keyInput = given(INPUTS.key);
  if (!keyInput.value.trim()) keyInput.value = readKey(ctx);
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
    'unless-dry-run',
  );
  const statusContext = inputOrDefault((n) => ctx.getInput(n), INPUTS.statusContext).replaceAll(
    '{resource}',
    settings.resource,
  );
  if (statusContext.length > 255 || /[\r\n]/.test(statusContext)) {
    throw new SettingsError(
      `Invalid input '${INPUTS.statusContext}': '${statusContext.slice(0, 60).replace(/[\r\n]+/g, ' ')}'. Expected one line of at most 255 characters (an empty 'github-token' turns statuses off).`,
    );
  }
  return { ...settings, githubToken: ctx.getInput(INPUTS.githubToken).trim(), statusContext };
}
