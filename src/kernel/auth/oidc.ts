import { createLocalJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import * as z from 'zod/mini';
import type { HttpClient } from '../../http/client.js';
import { urlForDisplay } from '../../http/url-display.js';
import { isLoopbackHost } from '../../plane/url.js';
import { causeText } from '../../errors.js';
import { AuthRefusal } from './refusal.js';

/**
 * Verifies OIDC ID tokens (GitHub Actions' by default) against the issuer's
 * published keys: discovery document, then JWKS, both fetched through our one
 * HTTP client (https only, plain http only for a loopback issuer). The keys are
 * fetched again every `cacheMs` (5 min), so a key the issuer dropped stops
 * verifying new tokens within that, and on an unknown `kid`; never two
 * attempts within `minRefreshMs`, failed ones included, so an issuer that is
 * down costs one fetch per bound, not one per request. jose does the JOSE
 * work: signature, `alg` allow-list, `iss`, `aud`, `exp`, `nbf`, `iat`.
 */

export const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';

/** Asymmetric signatures only: no `none`, no HMAC (a shared secret would let anyone with it mint tokens). */
export const ALLOWED_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'EdDSA',
] as const;

/** Clock skew tolerated on `exp`, `nbf`, `iat`. */
export const MAX_SKEW_S = 60;
/** The oldest `iat` accepted (GitHub's tokens last minutes; this only bounds a replayed one). */
const MAX_TOKEN_AGE_S = 6 * 3_600;
/** Discovery and JWKS bodies past this are refused (GitHub's JWKS is ~2 KB). */
const MAX_DOCUMENT_CHARS = 64 * 1024;
const MAX_KEYS = 50;
/**
 * Keys are fetched again after this even without an unknown kid: the longest a key
 * dropped from the JWKS still verifies new tokens while the issuer answers.
 */
export const JWKS_CACHE_MS = 300_000;
/**
 * While the issuer cannot be reached, the keys last fetched stay in use this long
 * after that fetch, then nothing verifies (503) until a fetch succeeds: an outage of
 * the issuer must not keep a dropped key alive for ever.
 */
export const JWKS_MAX_STALE_MS = 3_600_000;
/** The least time between two attempts to fetch the keys, by default. */
export const JWKS_MIN_REFRESH_MS = 10_000;
/**
 * Tokens already verified, kept until their `exp`: a keeper renews with the same token
 * every few seconds, and a signature check costs ~0.25 ms of CPU. Bounded; the oldest go first.
 */
const VERIFIED_TOKENS = 1_024;

export interface OidcOptions {
  issuer: string;
  audience: string;
  http: HttpClient;
  /** Epoch milliseconds. */
  now?: () => number;
  /** The least time between two attempts to fetch the keys, failed ones included (an unknown kid asks for one). */
  minRefreshMs?: number;
  /** How long fetched keys are used before they are fetched again (`JWKS_CACHE_MS`). */
  cacheMs?: number;
  /** How long past their fetch keys stay in use while fetching fails (`JWKS_MAX_STALE_MS`). */
  maxStaleMs?: number;
  skewS?: number;
}

export type OidcClaims = JWTPayload & Record<string, unknown>;

export interface OidcVerifier {
  readonly issuer: string;
  verify(token: string): Promise<OidcClaims>;
}

const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.string() });
const jwksSchema = z.object({
  keys: z.array(z.record(z.string(), z.unknown())).check(z.maxLength(MAX_KEYS)),
});

/** An issuer URL we may fetch from: https, or plain http on loopback; no credentials, query or fragment. */
export function checkIssuerUrl(value: string, what = 'issuer'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`the OIDC ${what} '${urlForDisplay(value)}' is not a URL`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(host));
  if (!secure || url.username || url.password || url.search || url.hash) {
    throw new Error(
      `the OIDC ${what} '${urlForDisplay(value)}' must be an https:// URL without credentials or query (plain http:// only on loopback)`,
    );
  }
  return url;
}

export function createOidcVerifier(options: OidcOptions): OidcVerifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  checkIssuerUrl(issuer);
  const now = options.now ?? Date.now;
  const minRefreshMs = options.minRefreshMs ?? JWKS_MIN_REFRESH_MS;
  const cacheMs = options.cacheMs ?? JWKS_CACHE_MS;
  const maxStaleMs = Math.max(options.maxStaleMs ?? JWKS_MAX_STALE_MS, cacheMs);
  const skewS = Math.min(options.skewS ?? MAX_SKEW_S, MAX_SKEW_S);
  let keys: ReturnType<typeof createLocalJWKSet> | undefined;
  /** When the keys in use were fetched. */
  let keysAt = -Infinity;
  /** When the last fetch began, whether or not it succeeded; and why the last one failed. */
  let attemptedAt = -Infinity;
  let lastError: unknown;
  let inFlight: Promise<void> | undefined;
  const verified = new Map<string, OidcClaims>();

  async function getJson(url: string, what: string): Promise<unknown> {
    const text = await options.http.getText(url, { accept: 'application/json' });
    if (text.length > MAX_DOCUMENT_CHARS) throw new Error(`the issuer's ${what} is too large`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`the issuer's ${what} is not JSON`);
    }
  }

  async function fetchKeys(): Promise<void> {
    attemptedAt = now();
    const discovery = discoverySchema.safeParse(
      await getJson(`${issuer}/.well-known/openid-configuration`, 'discovery document'),
    );
    if (!discovery.success || discovery.data.issuer.replace(/\/+$/, '') !== issuer) {
      throw new Error(`the issuer's discovery document does not name ${issuer} with a jwks_uri`);
    }
    const jwksUrl = checkIssuerUrl(discovery.data.jwks_uri, 'jwks_uri');
    const jwks = jwksSchema.safeParse(await getJson(jwksUrl.href, 'JWKS'));
    if (!jwks.success)
      throw new Error(`the issuer's JWKS is not a set of at most ${MAX_KEYS} keys`);
    keys = createLocalJWKSet(jwks.data);
    keysAt = attemptedAt;
  }

  /** One fetch at a time, later callers share it; none within `minRefreshMs` of the last attempt. */
  async function refresh(): Promise<void> {
    if (!inFlight && now() - attemptedAt < minRefreshMs) return;
    inFlight ??= fetchKeys()
      .then(() => (lastError = undefined))
      .catch((error: unknown) => {
        lastError = error;
      })
      .finally(() => (inFlight = undefined));
    await inFlight;
  }

  /** The keys to verify with now: fetched again when old; 503 when there are none fit to use. */
  async function keySet(): Promise<ReturnType<typeof createLocalJWKSet>> {
    if (!keys || now() - keysAt > cacheMs) await refresh();
    // A failed refresh keeps the keys we had, for a bounded time; without any, nothing verifies.
    if (keys && now() - keysAt <= maxStaleMs) return keys;
    throw unavailable(lastError ?? new Error('no keys fetched yet'));
  }

  /**
   * What jose asks for the key with, once it has read the header and checked its `alg`:
   * a token that is not even a JWS of an allowed algorithm never makes the kernel fetch.
   */
  const lookUp: JWTVerifyGetKey = async (header, token) => (await keySet())(header, token);

  async function verifyOnce(token: string) {
    const { payload } = await jwtVerify(token, lookUp, {
      issuer,
      audience: options.audience,
      algorithms: [...ALLOWED_ALGS],
      clockTolerance: skewS,
      maxTokenAge: MAX_TOKEN_AGE_S,
      requiredClaims: ['exp', 'iat'],
      currentDate: new Date(now()),
    });
    return payload as OidcClaims;
  }

  return {
    issuer,
    async verify(token) {
      const known = verified.get(token);
      // The time claims still decide on every use; only the signature check is not repeated.
      if (
        known &&
        (known.exp ?? 0) + skewS > now() / 1000 &&
        (known.nbf ?? 0) - skewS <= now() / 1000
      ) {
        return known;
      }
      if (known) verified.delete(token);
      const claims = await verifyUncached(token);
      if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
      verified.set(token, claims);
      return claims;
    },
  };

  async function verifyUncached(token: string): Promise<OidcClaims> {
    try {
      try {
        return await verifyOnce(token);
      } catch (error) {
        // A key we do not know yet: the issuer may have rotated. Fetch again, rate-bounded.
        if (!(error instanceof errors.JWKSNoMatchingKey) || now() - attemptedAt < minRefreshMs)
          throw error;
        await refresh();
        if (lastError !== undefined) throw unavailable(lastError);
        return await verifyOnce(token);
      }
    } catch (error) {
      if (error instanceof AuthRefusal) throw error;
      throw new AuthRefusal(`The OIDC token was refused: ${why(error)}.`, {
        status: 401,
        reason: 'unauthorized',
      });
    }
  }
}

function unavailable(error: unknown): AuthRefusal {
  const text = causeText(error);
  return new AuthRefusal(
    `The kernel cannot fetch the OIDC issuer's keys (${text.slice(0, 300)}); try again.`,
    { status: 503, reason: 'issuer_unavailable', cause: error },
  );
}

/** jose's reasons in words a caller can act on; never the token itself. */
function why(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'it has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `its "${error.claim}" claim is not accepted (${error.reason === 'missing' ? 'missing' : error.message})`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return `its algorithm is not one of ${ALLOWED_ALGS.join(', ')}`;
  if (error instanceof errors.JWKSNoMatchingKey)
    return "it is signed with a key the issuer doesn't publish";
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'its signature does not verify';
  if (error instanceof errors.JOSEError) return `it is not a valid JWT (${error.code})`;
  return 'it is not a valid JWT';
}
