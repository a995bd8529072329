/**
 * The one base of every error lease-gate means a person to read, and the one
 * function that turns any error into the line a person sees.
 *
 * A LeaseGateError's message is written for people (what failed, what to do)
 * and printed as it is, never with a stack; `code` is stable, for code that
 * decides on the kind of failure, and `cause` (ES2022) keeps the error it wraps.
 */
export class LeaseGateError extends Error {
  override name = 'LeaseGateError';
  readonly code: string;
  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.code = options.code ?? 'lease-gate';
  }
}

/** What a person can do about the system errors a face meets most. */
const HINTS: Record<string, string> = {
  EADDRINUSE: ' (the port is in use: pick another with --port, or 0 for a free one)',
  ENOENT: ' (no such file or directory)',
  ECONNREFUSED: ' (nothing listens there: is the kernel running?)',
  EACCES: ' (permission denied)',
};

/**
 * One line for any error: ours as written; an error of the system or of a driver (it
 * carries a string `code`: a port in use, a missing file, a refused connection, a
 * PostgreSQL error) by its first line, which names the path, address or reason, with a
 * hint for the common ones; anything else named as unexpected. Callers that print to a
 * log or a terminal still escape it (untrusted(), logLine()).
 */
export function errorMessage(error: unknown): string {
  if (error instanceof LeaseGateError) return error.message;
  const text = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return `${text}${HINTS[code] ?? ''}`;
  return `Unexpected error: ${text}`;
}

/**
 * The error's own words for the inside of a longer message ("Cannot read FILE: <this>."):
 * its message (or what it is, when not an Error) on one line, without errorMessage's
 * "Unexpected error: " or hints, which do not fit mid-sentence: the sentence around it
 * says what failed. Line breaks become spaces rather than cutting at the first, because
 * some libraries put the reason on a later line (@actions/core's "Failed to get ID Token.
 * \n Error Code : 500 …"). Callers clip and escape as their output needs; wrap with
 * `{ cause: error }` to keep the rest.
 */
export function causeText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error))
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim();
}
