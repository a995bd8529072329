/**
 * Every kind of failure lease-gate throws on purpose, one code each: stable, for code
 * (and people reading logs) that decide on the kind rather than the words. A new kind of
 * error adds its code here, so the list of what can go wrong is read in one place
 * (docs/architecture.md, "Errors").
 */
export const ERROR_CODES = [
  // A person's input: the command line, settings, files named on it.
  'usage',
  'settings',
  'config',
  'windows',
  'health_check',
  'notify',
  'auth_file',
  // Helpers and the outside world.
  'helper',
  'github',
  'http_network',
  'http_timeout',
  'http_too_large',
  'http_cancelled',
  // The plane's answers, as a client meets them.
  'lease_refused',
  'lease_revoked',
  'plane_key_refused',
  'plane_request_rejected',
  'plane_contract',
  'plane_broken_grant',
  'plane_transient',
  'plane_unavailable',
  'cancelled',
  // The kernel: its answers, its store, its start.
  'api_refusal',
  'auth_refusal',
  'client_gone',
  'store',
  'store_schema_too_new',
  'store_unavailable',
  'store_outcome_unknown',
  'store_commit_unknown',
  'start_refused',
  'state_locked',
  // The ledger and its bundles.
  'ledger',
  'ledger_lines_not_loaded',
  'ledger_fetch',
  'checkpoint',
  'bundle',
  'bundle_read',
  'bundle_not_streamable',
  // A broken promise of lease-gate's own code (a bug, not a person's mistake).
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** What every LeaseGateError is made with; subclasses fix `code` and add their own fields. */
export interface LeaseGateErrorOptions<C extends ErrorCode = ErrorCode> {
  code: C;
  /** The error this one wraps (ES2022 `cause`); absent, not `undefined`, when there is none. */
  cause?: unknown;
}

/** The options a subclass with one code takes: only what it wraps. */
export interface CauseOptions {
  cause?: unknown;
}

/**
 * The one base of every error lease-gate throws on purpose, and the one
 * function that turns any error into the line a person sees.
 *
 * A LeaseGateError's message is written for people (what failed, what to do)
 * and printed as it is, never with a stack; `code` is stable, one per kind
 * (ERROR_CODES), for code that decides on the kind of failure, and `cause`
 * keeps the error it wraps. Made as `new X(message, { ...fields, cause })`:
 * the message first as for Error, everything else named (sigstore's BaseError
 * is the model), so a field cannot be given in another's place.
 */
export class LeaseGateError<C extends ErrorCode = ErrorCode> extends Error {
  override name = 'LeaseGateError';
  readonly code: C;
  constructor(message: string, options: LeaseGateErrorOptions<C>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
  }
}

/** `{ cause }` when there is one, else nothing: `cause` is absent rather than undefined. */
export function causeOf(cause: unknown): CauseOptions {
  return cause === undefined ? {} : { cause };
}

/**
 * A promise of lease-gate's own code broken (a count that cannot be off, a state
 * the code never makes): a bug to report, printed as unexpected with its code
 * `internal` rather than as a person's mistake.
 */
export class InternalError extends LeaseGateError<'internal'> {
  override name = 'InternalError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'internal' });
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
 * One line for any error: ours as written (a bug of ours, code `internal`, as
 * unexpected); an error of the system or of a driver (it
 * carries a string `code`: a port in use, a missing file, a refused connection, a
 * PostgreSQL error) by its first line, which names the path, address or reason, with a
 * hint for the common ones; anything else named as unexpected. Callers that print to a
 * log or a terminal still escape it (untrusted(), logLine()).
 */
export function errorMessage(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  // A bug of ours is not a person's mistake: it is named as unexpected, as any other.
  if (error instanceof LeaseGateError) {
    return error.code === 'internal' ? `Unexpected error: ${text}` : error.message;
  }
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
