import { readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { createHttpClient, type HttpClient } from '../http/client.js';
import { parsePlaneUrl } from '../plane/url.js';
import { SettingsError } from './errors.js';

/**
 * OIDC ID tokens as the plane credential: a job's own token from the runner's
 * token request service (the action's steps and its keeper), a file or a variable (the CLI), each kept until shortly
 * before it expires. Tokens are never logged, saved or put in a message.
 */

export type TokenSource = () => Promise<string>;

export const DEFAULT_AUDIENCE = 'lease-gate';
export const TOKEN_ENV = 'LEASE_GATE_OIDC_TOKEN';
/** A token is replaced this long before its `exp`. */
const REFRESH_BEFORE_S = 120;
/** A token whose expiry we cannot read is asked for again after this. */
const UNKNOWN_LIFETIME_MS = 60_000;
const MAX_TOKEN_CHARS = 16_384;

/** Of a JWT's payload only `exp` is read (seconds since the epoch); the rest is the plane's to check. */
const jwtExpirySchema = z.object({ exp: z.number() });
/** The runner's token service answers `{ value: <the JWT> }`. */
const tokenAnswerSchema = z.object({
  value: z.string().check(z.minLength(1), z.maxLength(MAX_TOKEN_CHARS)),
});

/**
 * A compact JWT's payload, read and NOT verified: the plane verifies. The CLI reads its own
 * token only to pace refreshes and to name itself as the DID the token vouches for.
 */
export function tokenClaims(token: string): Record<string, unknown> | undefined {
  const payload = token.split('.')[1];
  if (!payload || payload.length > MAX_TOKEN_CHARS) return undefined;
  try {
    const json: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return json && typeof json === 'object' && !Array.isArray(json)
      ? (json as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The `exp` of a compact JWT, read (not verified: the plane verifies) only to pace refreshes. */
export function tokenExpiryMs(token: string): number | undefined {
  const read = jwtExpirySchema.safeParse(tokenClaims(token));
  return read.success ? read.data.exp * 1000 : undefined;
}

/** One token until shortly before it expires, then a fresh one; concurrent callers share a fetch. */
export function cachedToken(fetch: TokenSource, now: () => number = Date.now): TokenSource {
  let token: string | undefined;
  let freshUntil = -Infinity;
  let pending: Promise<string> | undefined;
  return async () => {
    if (token && now() < freshUntil) return token;
    pending ??= fetch()
      .then((value) => {
        const exp = tokenExpiryMs(value);
        token = value;
        freshUntil =
          exp === undefined
            ? now() + UNKNOWN_LIFETIME_MS
            : Math.max(now() + 5_000, exp - REFRESH_BEFORE_S * 1000);
        return value;
      })
      .finally(() => (pending = undefined));
    return pending;
  };
}

/** Whether this job may ask the runner for a token (`permissions: id-token: write`). */
export function runnerCanIssue(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN);
}

/**
 * The runner's token request service, asked as `@actions/core`'s getIDToken asks
 * it: GET `$ACTIONS_ID_TOKEN_REQUEST_URL&audience=AUD` with the request token
 * as Bearer, answering `{ value }`. Its variables last the whole job.
 */
export function runnerTokenSource(
  env: NodeJS.ProcessEnv,
  audience: string,
  http: HttpClient = createHttpClient({ env }),
): TokenSource {
  const base = env.ACTIONS_ID_TOKEN_REQUEST_URL ?? '';
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN ?? '';
  let origin: { ok: boolean } = { ok: false };
  try {
    origin = parsePlaneUrl(new URL(base).origin);
  } catch {
    // not a URL: refused below
  }
  if (!origin.ok || !requestToken) {
    throw new SettingsError(
      'No OIDC token service: ACTIONS_ID_TOKEN_REQUEST_URL (https://, or http:// on loopback) and ACTIONS_ID_TOKEN_REQUEST_TOKEN must be set; give the job `permissions: id-token: write`.',
    );
  }
  return async () => {
    const text = await http.getText(`${base}&audience=${encodeURIComponent(audience)}`, {
      authorization: `Bearer ${requestToken}`,
      accept: 'application/json',
    });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const answer = tokenAnswerSchema.safeParse(json);
    if (!answer.success) throw new Error("the runner's token service answered without a token");
    return answer.data.value;
  };
}

/**
 * One token from the runner's service, on a client of its own (closed after). The action's
 * steps ask here rather than `@actions/core`'s getIDToken, whose `@actions/http-client`
 * brings all of undici onto every step's start (docs/performance.md, start-up).
 */
export async function askRunnerForToken(env: NodeJS.ProcessEnv, audience: string): Promise<string> {
  const http = createHttpClient({ env });
  try {
    return await runnerTokenSource(env, audience, http)();
  } finally {
    await http.close();
  }
}

/** A token from a file (read on each refresh: another tool may renew it) or from LEASE_GATE_OIDC_TOKEN. */
export function givenTokenSource(file: string | undefined, env: NodeJS.ProcessEnv): TokenSource {
  if (!file) {
    const value = (env[TOKEN_ENV] ?? '').trim();
    return () => Promise.resolve(value);
  }
  const read = () => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new SettingsError(
        `Cannot read --oidc-token-file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}.`,
        { cause: error },
      );
    }
    if (!text || text.length > MAX_TOKEN_CHARS || /\s/.test(text)) {
      throw new SettingsError(`Invalid --oidc-token-file ${file}: expected one compact JWT.`);
    }
    return text;
  };
  read();
  // A file that went bad since is a rejected promise, as from an async function.
  return () => new Promise<string>((resolve) => resolve(read()));
}
