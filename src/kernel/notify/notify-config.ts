import { readFileSync } from 'node:fs';
import { urlForDisplay } from '../../http/url-display.js';
import { isLoopbackHost } from '../../plane/url.js';
import { causeText, LeaseGateError, type CauseOptions } from '../../errors.js';

/**
 * The notifier's settings as the kernel's command takes them (`--notify URL`,
 * `--notify-secret-file FILE`, `--notify-file FILE`), checked whole at start: a URL that
 * would send the secret in clear, a short secret or a malformed file stops the kernel
 * before it serves, not at the first change.
 */

export class NotifyError extends LeaseGateError<'notify'> {
  override name = 'NotifyError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'notify' });
  }
}

/** `--notify` URLs: https:, or plain http: to this machine only (never a secret in clear). */
export function checkNotifyUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NotifyError(`Invalid --notify '${urlForDisplay(raw)}': expected an https: URL.`);
  }
  const secure = url.protocol === 'https:';
  const loopback = url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (!(secure || loopback) || url.username || url.password) {
    throw new NotifyError(
      `Invalid --notify '${url.origin}': expected an https: URL without credentials (plain http: only to loopback).`,
    );
  }
  return url.href;
}

export function readNotifySecret(file: string): string {
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new NotifyError(`Cannot read --notify-secret-file ${file}: ${causeText(error)}`, {
      cause: error,
    });
  }
  if (secret.length < 16) {
    throw new NotifyError(
      `--notify-secret-file ${file}: expected a secret of at least 16 characters.`,
    );
  }
  return secret;
}

/**
 * `--notify-file FILE`: the same settings as a config entry,
 * `{"notify": {"urls": ["https://…"], "secretFile": "/path"}}`; the flags add to its URLs
 * and `--notify-secret-file` wins over its secret file. Checked whole at start.
 */
export function readNotifyFile(file: string): { urls: string[]; secretFile?: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new NotifyError(`Cannot read --notify-file ${file}: ${causeText(error)}`, {
      cause: error,
    });
  }
  const form = `expected {"notify": {"urls": ["https://…"], "secretFile": "FILE"}}`;
  const notify = (raw as { notify?: unknown } | null)?.notify as
    { urls?: unknown; secretFile?: unknown } | undefined;
  if (typeof notify !== 'object' || notify === null || Array.isArray(notify))
    throw new NotifyError(`--notify-file ${file}: ${form}.`);
  const { urls, secretFile } = notify;
  if (
    !Array.isArray(urls) ||
    urls.length === 0 ||
    urls.length > 20 ||
    !urls.every((u) => typeof u === 'string')
  )
    throw new NotifyError(`--notify-file ${file}: notify.urls: expected 1 to 20 URLs as strings.`);
  if (secretFile !== undefined && (typeof secretFile !== 'string' || secretFile === ''))
    throw new NotifyError(`--notify-file ${file}: notify.secretFile: expected a file path.`);
  for (const url of urls) checkNotifyUrl(url);
  return { urls, ...(secretFile ? { secretFile } : {}) };
}
