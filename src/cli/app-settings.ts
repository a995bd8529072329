import { isLoopbackHost } from '../http/loopback.js';
import { untrusted } from '../lease/escape.js';
import type { LogFormat } from '../log/logger.js';
import { logFormatOf } from './log-format-flag.js';
import { UsageError } from './options.js';

/**
 * `lease-gate app` and `app smoke`: their flags, parsed by their tables (app-help.ts), to
 * checked settings or a UsageError naming the flag. Pure: the files they name (the config,
 * the webhook secret) are read when the command starts.
 */

export interface AppSettings {
  /** The app's JSON config; loadConfig() reads and checks it at start. */
  configFile: string;
  /** --log-format, else LEASE_GATE_LOG_FORMAT, else text. */
  logFormat: LogFormat;
}

export function appSettings(
  values: { config?: string | undefined; 'log-format'?: string | undefined },
  env: NodeJS.ProcessEnv = {},
): AppSettings {
  if (!values.config) throw new UsageError('Missing --config FILE: the JSON config of the app.');
  return { configFile: values.config, logFormat: logFormatOf(values['log-format'], env) };
}

export interface SmokeSettings {
  /** The webhook URL, as GitHub is given it. */
  url: string;
  /** The app's webhookSecretFile, read at start. */
  secretFile: string;
}

export function smokeSettings(values: {
  url?: string | undefined;
  'secret-file'?: string | undefined;
}): SmokeSettings {
  const url = webhookUrl(values.url);
  const secretFile = values['secret-file'];
  if (!secretFile)
    throw new UsageError("app smoke needs --secret-file FILE: the app's webhookSecretFile.");
  return { url, secretFile };
}

const URL_FORM =
  'the webhook URL GitHub is given, https:// (plain http:// only to loopback), such as https://gate.example.com/webhook';

/** https:, or plain http: to loopback only (the secret's signature goes with it); no credentials. */
function webhookUrl(raw: string | undefined): string {
  if (!raw) throw new UsageError(`app smoke needs --url URL: ${URL_FORM}.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL('invalid:');
  }
  const ok =
    (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) &&
    !url.username &&
    !url.password;
  if (!ok) throw new UsageError(`Invalid --url '${untrusted(raw, 200)}'. Expected ${URL_FORM}.`);
  return url.href;
}
