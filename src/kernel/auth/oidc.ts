import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { HttpClient } from '../../http/client.js';
import { GITHUB_ISSUER_URL } from './github-issuer.js';
import { checkIssuerUrl, IssuerKeys, unavailable } from './oidc-keys.js';
import { AuthRefusal } from './refusal.js';

/**
 * Verifies OIDC ID tokens (GitHub Actions' by default) against the issuer's
 * published keys: discovery document, then JWKS, both fetched through our one
 * HTTP client (https only, plain http only for a loopback issuer). The keys are
 * fetched again every `cacheMs` (5 min; oidc-keys.ts), so a key the issuer dropped stops
 * verifying new tokens within that, and on an unknown `kid`; never two
 * attempts within `minRefreshMs`, failed ones included, so an issuer that is
 * down costs one fetch per bound, not one per request. jose does the JOSE
 * work: signature, `alg` allow-list, `iss`, `aud`, `exp`, `nbf`, `iat`.
 */

export const GITHUB_ISSUER = GITHUB_ISSUER_URL;

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

export function createOidcVerifier(options: OidcOptions): OidcVerifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  checkIssuerUrl(issuer);
  const now = options.now ?? Date.now;
  const cacheMs = options.cacheMs ?? JWKS_CACHE_MS;
  const skewS = Math.min(options.skewS ?? MAX_SKEW_S, MAX_SKEW_S);
  const keys = new IssuerKeys(issuer, {
    http: options.http,
    now,
    minRefreshMs: options.minRefreshMs ?? JWKS_MIN_REFRESH_MS,
    cacheMs,
    maxStaleMs: Math.max(options.maxStaleMs ?? JWKS_MAX_STALE_MS, cacheMs),
  });
  const verified = new Map<string, OidcClaims>();

  /**
   * What jose asks for the key with, once it has read the header and checked its `alg`:
   * a token that is not even a JWS of an allowed algorithm never makes the kernel fetch.
   */
  const lookUp: JWTVerifyGetKey = async (header, token) => (await keys.keySet())(header, token);

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

  async function verifyUncached(token: string): Promise<OidcClaims> {
    try {
      try {
        return await verifyOnce(token);
      } catch (error) {
        // A key we do not know yet: the issuer may have rotated. Fetch again, rate-bounded.
        if (!(error instanceof errors.JWKSNoMatchingKey) || !keys.mayRefresh) throw error;
        await keys.refresh();
        if (keys.lastError !== undefined) throw unavailable(keys.lastError);
        return await verifyOnce(token);
      }
    } catch (error) {
      if (error instanceof AuthRefusal) throw error;
      throw new AuthRefusal(`The OIDC token was refused: ${why(error)}.`, {
        status: 401,
        reason: 'unauthorized',
        cause: error,
      });
    }
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
