import { untrusted } from '../lease/escape.js';

/**
 * Why a GitHub API call failed, in words that point at the fix: a host that could not
 * be reached is not a permission problem, a 401 is the token, a 403 the permission
 * (or the rate limit), a 404 the thing asked for. The gate never fails for any of them.
 */
export interface GitHubCall {
  /** The API's origin, for "could not reach …". */
  apiUrl: string;
  /** What the call was for, as in "the holder's run 777 in acme/shop". */
  what: string;
  /** What a 404 means was not found, as in "run 777 in acme/shop". */
  missing: string;
  /** The permission the call needs, as in "actions: read". */
  permission: string;
}

interface OctokitFailure {
  status?: unknown;
  message?: unknown;
  response?: { headers?: Record<string, unknown> } | undefined;
  cause?: unknown;
}

export function describeGitHubFailure(error: unknown, call: GitHubCall): string {
  const e = (typeof error === 'object' && error !== null ? error : {}) as OctokitFailure;
  const status = typeof e.status === 'number' ? e.status : undefined;
  const said = untrusted(String(e.message ?? error).split('\n')[0] ?? '', 160);
  // Octokit reports a fetch that got no answer (DNS, refused, reset, timeout) as a 500 without a response.
  if (!e.response) {
    return `could not reach ${untrusted(call.apiUrl, 200)} for ${call.what} (${networkCause(e) ?? said}): check the runner's network, proxy and GITHUB_API_URL; it is not a permission problem`;
  }
  const headers = e.response.headers ?? {};
  if (status === 401)
    return `GitHub refused the token (401 ${said}): the 'github-token' input is not a valid token for ${untrusted(call.apiUrl, 200)}`;
  if (status === 403 || status === 429) {
    if (String(headers['x-ratelimit-remaining'] ?? '') === '0' || status === 429)
      return `GitHub's rate limit was reached for ${call.what} (${status} ${said})`;
    return `GitHub refused ${call.what} (${status} ${said}): the token needs '${call.permission}' permission (fork pull requests do not get it)`;
  }
  if (status === 404)
    return `GitHub found no ${call.missing} (404 ${said}), or the token cannot see that repository`;
  return `GitHub answered ${status ?? '?'} for ${call.what} (${said})`;
}

/** The system error behind a failed fetch: ENOTFOUND api.github.com, ECONNREFUSED 127.0.0.1:1. */
function networkCause(e: OctokitFailure): string | undefined {
  for (let cause = e.cause, depth = 0; cause && depth < 4; depth += 1) {
    const c = cause as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof c.code === 'string' && /^E[A-Z_]+$/.test(c.code))
      return untrusted(String(c.message ?? c.code), 160);
    cause = c.cause;
  }
  return undefined;
}
