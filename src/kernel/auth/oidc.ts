import { createLocalJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import * as z from 'zod/mini';
import type { HttpClient } from '../../http/client.js';
import { isLoopbackHost } from '../../plane/url.js';
import { causeText } from '../../errors.js';
import { AuthRefusal } from './refusal.js';

/**
 * Verifies OIDC ID tokens (GitHub Actions' by default) against the issuer's
 * published keys: discovery document, then JWKS, both fetched through our one
 * HTTP client (https only, plain http only for a loopback issuer), cached,
 * refetched on an unknown `kid` at most once per `minRefreshMs`. jose does the
 * JOSE work: signature, `alg` allow-list, `iss`, `aud`, `exp`, `nbf`, `iat`.
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
/** Keys are fetched again after this even without an unknown kid. */
const CACHE_MS = 3_600_000;
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
  /** The least time between two fetches of the keys (an unknown kid asks for a fetch). */
  minRefreshMs?: number;
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
    throw new Error(`the OIDC ${what} '${value.slice(0, 200)}' is not a URL`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(host));
  if (!secure || url.username || url.password || url.search || url.hash) {
    throw new Error(
      `the OIDC ${what} '${value.slice(0, 200)}' must be an https:// URL without credentials or query (plain http:// only on loopback)`,
    );
  }
  return url;
}

export function createOidcVerifier(options: OidcOptions): OidcVerifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  checkIssuerUrl(issuer);
  const now = options.now ?? Date.now;
  const minRefreshMs = options.minRefreshMs ?? 10_000;
  const skewS = Math.min(options.skewS ?? MAX_SKEW_S, MAX_SKEW_S);
  let keys: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = -Infinity;
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
    fetchedAt = now();
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
  }

  /** One fetch at a time; later callers share it. */
  function refresh(): Promise<void> {
    inFlight ??= fetchKeys().finally(() => (inFlight = undefined));
    return inFlight;
  }

  async function keySet() {
    if (!keys || now() - fetchedAt > CACHE_MS) {
      try {
        await refresh();
      } catch (error) {
        // A failed refresh keeps the keys we had; without any, nothing verifies.
        if (!keys) throw unavailable(error);
      }
    }
    return keys!;
  }

  async function verifyOnce(token: string, set: ReturnType<typeof createLocalJWKSet>) {
    const { payload } = await jwtVerify(token, set, {
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
        return await verifyOnce(token, await keySet());
      } catch (error) {
        // A key we do not know yet: the issuer may have rotated. Fetch again, rate-bounded.
        if (!(error instanceof errors.JWKSNoMatchingKey) || now() - fetchedAt < minRefreshMs)
          throw error;
        try {
          await refresh();
        } catch (fetchError) {
          throw unavailable(fetchError);
        }
        return await verifyOnce(token, keys!);
      }
    } catch (error) {
      if (error instanceof AuthRefusal) throw error;
      throw new AuthRefusal(401, 'unauthorized', `The OIDC token was refused: ${why(error)}.`);
    }
  }
}

function unavailable(error: unknown): AuthRefusal {
  const text = causeText(error);
  return new AuthRefusal(
    503,
    'issuer_unavailable',
    `The kernel cannot fetch the OIDC issuer's keys (${text.slice(0, 300)}); try again.`,
    { cause: error },
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
