import { createAppAuth } from '@octokit/auth-app';
import { request as octokitRequest } from '@octokit/request';
import type { HttpAnswer } from '../http/client.js';
import { fetchOver } from '../http/fetch.js';
import { causeText } from '../errors.js';
import { HttpError } from '../http/errors.js';
import { GitHubError, retryWait } from '../github/rest.js';
import { untrusted } from '../lease/escape.js';
import { backoffMs } from '../plane/retry.js';
import {
  USER_AGENT,
  retrying,
  type Bearers,
  type RetryIn,
  type Transport,
} from './github-transport.js';

/**
 * Who the App calls as: its JWT, made from the private key (`@octokit/auth-app`), and
 * installation tokens, cached by auth-app and fetched again shortly before they expire.
 * The token exchange goes through the one HTTP client too, retried like every call.
 */

export interface AppKey {
  appId: string;
  privateKey: string;
}

/** A token expiring sooner than this is fetched again. */
const REFRESH_BEFORE_MS = 5 * 60_000;

type AppAuth = ReturnType<typeof createAppAuth>;

export function appBearers(t: Transport, key: AppKey): Bearers {
  const { apiUrl, http, signal } = t.options;
  const auth = createAppAuth({
    appId: key.appId,
    privateKey: key.privateKey,
    // The token exchange goes through the one HTTP client too: its timeouts, its proxy rules.
    request: octokitRequest.defaults({
      baseUrl: apiUrl,
      headers: { 'user-agent': USER_AGENT },
      // The app's stop cuts a token exchange in flight too.
      request: { fetch: fetchOver(http), ...(signal ? { signal } : {}) },
    }),
  });
  return {
    token: (installationId, refresh) => token(t, auth, installationId, refresh),
    appJwt: () => appJwt(auth),
  };
}

async function token(
  t: Transport,
  auth: AppAuth,
  installationId: number,
  refresh: boolean,
): Promise<string> {
  let attempts = 0;
  return retrying(t, `installation ${installationId} token`, async () => {
    try {
      const got = await auth({
        type: 'installation',
        installationId,
        ...(refresh ? { refresh } : {}),
      });
      if (!refresh && Date.parse(got.expiresAt) - t.options.wallNow() < REFRESH_BEFORE_MS) {
        return token(t, auth, installationId, true);
      }
      return got.token;
    } catch (error) {
      if (error instanceof GitHubError) throw error;
      // No answer (the client's timeout, a network failure): octokit wraps the client's
      // HttpError as a status 500; back off as for any other call, saying what happened.
      const failed = (error as { cause?: unknown }).cause;
      if (failed instanceof HttpError) {
        if (failed.failure === 'cancelled') throw failed;
        attempts += 1;
        return { retryInMs: backoffMs(t.policy, attempts, t.options.random), why: failed.message };
      }
      return tokenAnswered(t, installationId, error);
    }
  });
}

/** GitHub answered the token exchange with a refusal: how long to wait before asking again, or the error. */
function tokenAnswered(
  { options, policy }: Transport,
  installationId: number,
  error: unknown,
): RetryIn {
  const status = Number((error as { status?: unknown }).status ?? 0);
  const headers =
    (error as { response?: { headers?: HttpAnswer['headers'] } }).response?.headers ?? {};
  const wait = retryWait({ status, headers }, options.wallNow(), policy, 0, options.random);
  if (wait !== undefined) return { retryInMs: wait, why: `GitHub answered ${status || 'nothing'}` };
  if (status === 404 || status === 401 || status === 403) {
    throw new GitHubError(
      `installation ${installationId}: GitHub refused a token (${status}): not installed, suspended, or the App id or key is wrong`,
      { status },
    );
  }
  throw new GitHubError(
    `installation ${installationId} token: ${untrusted(causeText(error), 200)}`,
    {
      status,
      cause: error,
    },
  );
}

/** The App's own JWT (for `/app/…` routes), made by auth-app from the private key. */
async function appJwt(auth: AppAuth): Promise<string> {
  try {
    return (await auth({ type: 'app' })).token;
  } catch (error) {
    throw new GitHubError(`App JWT: ${untrusted(causeText(error), 200)}`, {
      status: 0,
      cause: error,
    });
  }
}
