import { CONTROL_CHARS } from '../control-chars.js';

/**
 * The one way a URL lease-gate was given (a flag, a config file) is shown anywhere: in an
 * error, a log line, an answer, a notification or the ledger. Only its scheme, host, port
 * and path: credentials (`user:password@`), the query (`?token=…`) and the fragment may
 * hold a secret, and what is signed into the ledger can never be taken out again.
 *
 * Text that does not parse as a URL is cut the same way, by its characters: a refused
 * flag is echoed so the person sees which one, never with what might be its secret.
 */
export function urlForDisplay(raw: string | URL): string {
  let url: URL | undefined;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    url = undefined;
  }
  // A bare origin is shown as written (`https://api.github.com`), without the parser's '/'.
  const shown = url
    ? `${url.protocol}${url.host ? `//${url.host}` : ''}${url.pathname === '/' ? '' : url.pathname}`
    : cutByHand(String(raw));
  // A shown URL is one line a terminal prints as it is.
  return shown.replace(CONTROL_CHARS, '?').slice(0, 200);
}

/** `scheme://user:pass@host/path?query#fragment` → `scheme://host/path`, for text no URL parser takes. */
function cutByHand(text: string): string {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^?#]*)/.exec(text);
  const scheme = match?.[1] ?? '';
  let rest = match?.[2] ?? '';
  // Credentials end at the last '@' before the path (a password may itself hold '@').
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const at = authority.lastIndexOf('@');
  if (at >= 0) rest = rest.slice(at + 1);
  return `${scheme}${rest}`;
}
