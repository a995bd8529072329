import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sign } from '@octokit/webhooks-methods';
import { causeText } from '../errors.js';
import { createHttpClient } from '../http/client.js';
import { untrusted } from '../lease/escape.js';
import { EXIT, UsageError, parse, type Output } from './options.js';
import { APP_SMOKE } from './app-help.js';
import { smokeSettings } from './app-settings.js';
import { optionsOf } from './flags/table.js';

/**
 * `lease-gate app smoke`: the wiring of a protection-rule app checked without GitHub. It
 * signs a sample `deployment_protection_rule` delivery with the webhook secret and sends
 * it where GitHub would (through the TLS proxy, if any), then says what the app answered.
 * The sample names no run (its callback URL is not a run's), so the app reads and checks
 * it, then ignores it: nothing is queued and GitHub is never called.
 */

export const SMOKE_REPOSITORY = 'lease-gate/smoke-test';

/** The sample: a delivery the app accepts and ignores (it names no run of the repository). */
export function smokePayload(): object {
  return {
    action: 'requested',
    environment: 'lease-gate-smoke-test',
    event: 'workflow_dispatch',
    deployment_callback_url: `https://api.github.com/repos/${SMOKE_REPOSITORY}/lease-gate-smoke-test`,
    deployment: { id: 1 },
    repository: { full_name: SMOKE_REPOSITORY },
    installation: { id: 1 },
  };
}

/** The webhook secret, as the app reads it: the file's text, trimmed. */
function readSecret(file: string): string {
  let secret: string;
  try {
    // As the app reads it: the file's text, trimmed.
    secret = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new UsageError(`Cannot read --secret-file ${untrusted(file, 200)}: ${causeText(error)}`);
  }
  if (!secret) throw new UsageError(`--secret-file ${untrusted(file, 200)} is empty.`);
  return secret;
}

/** What the app's answer means for the wiring, in one line; ok only for 202. */
export function readAnswer(
  status: number,
  body: string,
  id: string,
): { ok: boolean; line: string } {
  const said = untrusted(body.replace(/\s+/g, ' '), 200);
  if (status === 202)
    return {
      ok: true,
      line: `OK: the app accepted the signed deployment_protection_rule delivery ${id} (202): the URL reaches it and the webhook secret matches. The sample names no run, so the app ignores it; its log says "delivery ${id}: deployment_callback_url names no run of ${SMOKE_REPOSITORY}; ignored".`,
    };
  if (status === 401)
    return {
      ok: false,
      line: `FAIL: the app refused the signature (401 ${said}): --secret-file is not the secret in its webhookSecretFile (nor the App's webhook secret on GitHub, if they agree).`,
    };
  if (status === 404)
    return {
      ok: false,
      line: `FAIL: 404 ${said}: nothing takes deliveries at that path. Is it the app's listen.path (and the proxy's route to it)?`,
    };
  return { ok: false, line: `FAIL: the URL answered ${status} ${said}: not the app's 202.` };
}

export async function appSmoke(
  args: string[],
  io: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { values } = parse(args, optionsOf(APP_SMOKE.flags));
  const { url, secretFile } = smokeSettings(values);
  const secret = readSecret(secretFile);
  const body = JSON.stringify(smokePayload());
  const id = `lease-gate-smoke-${randomUUID()}`;
  const http = createHttpClient({ env });
  try {
    const answer = await http.send({
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'lease-gate-app-smoke',
        'x-github-event': 'deployment_protection_rule',
        'x-github-delivery': id,
        'x-hub-signature-256': await sign(secret, body),
      },
      body,
    });
    const { ok, line } = readAnswer(answer.status, answer.text, id);
    if (ok) io.out(line);
    else io.err(line);
    return ok ? EXIT.done : EXIT.refused;
  } finally {
    await http.close();
  }
}
