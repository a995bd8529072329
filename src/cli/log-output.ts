import {
  createLogger,
  stderrLevel,
  type LogFields,
  type LogFormat,
  type LogLevel,
} from '../log/logger.js';
import { errorMessage } from '../errors.js';
import { untrusted } from '../lease/escape.js';
import { EXIT, UsageError, type Output } from './options.js';

/**
 * A command's Output with every line through one logger (src/log/logger.ts): masked and
 * escaped, and with --log-format json one JSON object a line. Lines keep their stream: the
 * listening line and the events on stdout (level info), the rest on stderr (warn, or error
 * when the line says a failure).
 */
export interface LoggedOutput extends Output {
  /** A stdout line with its fields (a JSON line carries them; text shows the line alone). */
  outWith(line: string, fields: LogFields): void;
  /** A stderr line with its fields; its level said, or read from its words. */
  errWith(line: string, fields: LogFields, level?: LogLevel): void;
}

export interface LogSettings {
  format: LogFormat;
  /** Values never written (the keys, a database password). */
  secrets: readonly (string | undefined)[];
  /** Fields on every JSON line (the replica). */
  base?: LogFields;
}

export function loggedOutput(io: Output, settings: LogSettings, now = Date.now): LoggedOutput {
  const common = {
    format: settings.format,
    now,
    secrets: settings.secrets,
    base: settings.base ?? {},
  };
  const out = createLogger({ ...common, write: (line) => io.out(line) });
  const err = createLogger({ ...common, write: (line) => io.err(line) });
  return {
    out: (line) => out.info(line),
    err: (line) => err.log(stderrLevel(line), line),
    outWith: (line, fields) => out.info(line, fields),
    errWith: (line, fields, level) => err.log(level ?? stderrLevel(line), line, fields),
    // A long answer (an export) is data, not a log line: as it is.
    ...(io.write && { write: io.write }),
  };
}

/** A connection string's password, to be masked wherever a line might quote it. */
export function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A command that could not start, said as main() says it (text: rethrown for main()), or
 * with --log-format json as a JSON line a log store reads: exit 2 for a setting, 1 else.
 */
export function refusedToStart(
  error: unknown,
  log: LogSettings,
  logged: LoggedOutput,
  command: string,
): number {
  if (log.format === 'text') throw error;
  if (error instanceof UsageError) {
    logged.errWith(untrusted(error.message, 1_000), { refused: 'usage' }, 'error');
    return EXIT.usage;
  }
  logged.err(`lease-gate ${command}: could not start: ${untrusted(errorMessage(error), 1_000)}`);
  return EXIT.refused;
}
