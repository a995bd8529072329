import { logLine } from '../lease/escape.js';

/**
 * The kernel's and the App's one way to say something: a line of text for people (as it has
 * always been written), or a JSON line for a log store (`--log-format json`). Every line, in
 * either form, is masked (secret values, URL credentials, secret query values) and escaped
 * (logLine: no CR, LF or terminal control gets through) before it is written.
 *
 * Hand-written rather than pino: the kernel writes a few lines per lease event, and pino's
 * require alone costs ~50 ms at start (median of 21 runs, Node 24) and ~59 KB minified in
 * the bundle, for redaction by field path where ours must be by value (docs/logs.md).
 */

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const LOG_FORMAT_FORM =
  "'text' (lines for people, the default) or 'json' (one JSON object a line)";

export type LogLevel = 'info' | 'warn' | 'error';

/** What a JSON line carries beside level, time and msg: only text and numbers, all masked. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** `--log-format` or LEASE_GATE_LOG_FORMAT, else text; undefined: neither form. */
export function parseLogFormat(raw: string | undefined): LogFormat | undefined {
  if (raw === undefined || raw === '') return 'text';
  return (LOG_FORMATS as readonly string[]).includes(raw) ? (raw as LogFormat) : undefined;
}

export interface LoggerOptions {
  format: LogFormat;
  /** Where one finished line goes (without its newline). */
  write: (line: string) => void;
  now: () => number;
  /** Values never to be written (keys, the notification secret), each replaced by ***. */
  secrets?: readonly (string | undefined)[];
  /** Fields on every JSON line (the replica). */
  base?: LogFields;
}

export interface Logger {
  log(level: LogLevel, msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function createLogger(options: LoggerOptions): Logger {
  // Longest first, so a secret that holds a shorter one is masked whole. Very short values
  // (under 8 characters) would mask ordinary words; no key lease-gate takes is that short.
  const secrets = [...new Set(options.secrets ?? [])]
    .filter((s): s is string => typeof s === 'string' && s.length >= 8)
    .sort((a, b) => b.length - a.length);
  const clean = (text: string) => logLine(maskSecrets(text, secrets));
  const log = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (options.format === 'text') return options.write(clean(msg));
    const line: Record<string, string | number | boolean> = {
      level,
      time: new Date(options.now()).toISOString(),
      msg: clean(msg),
    };
    for (const [name, value] of Object.entries({ ...options.base, ...fields })) {
      if (value === undefined || name in line) continue;
      line[name] = typeof value === 'string' ? clean(value) : value;
    }
    options.write(JSON.stringify(line));
  };
  return {
    log,
    info: (msg, fields) => log('info', msg, fields),
    warn: (msg, fields) => log('warn', msg, fields),
    error: (msg, fields) => log('error', msg, fields),
  };
}

/** Query parameters whose value is a credential by its name (`?access_token=…`, `&sig=…`). */
const SECRET_PARAM =
  /([?&;](?:[\w.-]*(?:token|key|secret|password|passwd|pwd|sig|signature|auth|code|credential)[\w.-]*)=)[^&#\s"']+/gi;
/** A URL's userinfo: `scheme://user:password@`, or `scheme://token@` (no colon). */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"':]*)(:[^\s/?#@"']*)?@/gi;

/** The password as ***, the user kept; a user alone is masked when it is long enough to be a token. */
const maskUserinfo = (_: string, scheme: string, user: string, password: string | undefined) =>
  password !== undefined
    ? `${scheme}${user}:***@`
    : `${scheme}${user.length >= 16 ? '***' : user}@`;

/**
 * Every given secret, every URL's userinfo and every credential-named query value as ***.
 * A second fence behind the call sites' own care (urlForDisplay, redactUrl, withoutUrl): a
 * line someone adds later that quotes an error with a URL in it still leaks nothing.
 */
export function maskSecrets(text: string, secrets: readonly string[] = []): string {
  let masked = text;
  for (const secret of secrets) masked = masked.split(secret).join('***');
  return masked.replace(URL_USERINFO, maskUserinfo).replace(SECRET_PARAM, '$1***');
}

/** The level a line written to stderr is logged at: a failure's words say error, else warn. */
export function stderrLevel(line: string): LogLevel {
  return /\b(failed|fails|could not|cannot|gave up|broke|lost|refus\w*|error)\b/i.test(line)
    ? 'error'
    : 'warn';
}
