import type { HttpClient } from '../../http/client.js';
import type { IssuerSpec } from './issuer-config.js';
import { jobIdentity, type JobIdentity } from './mappings.js';
import type { OidcClaims, OidcVerifier } from './oidc.js';
import { AuthRefusal } from './refusal.js';

/**
 * The issuers a kernel accepts tokens of, each with its own verifier (keys, audience). A
 * token goes to the issuer its `iss` names, read before anything is verified and matched
 * exactly; that issuer's verifier then checks it (signature, `iss` again, `aud`, times). So a
 * token claiming one issuer but signed with another's key fails the first's signature check,
 * and a token of an issuer not configured is refused 401 naming those that are.
 */

export interface OidcIssuer extends IssuerSpec {
  verifier: OidcVerifier;
}

export interface VerifiedJob {
  issuer: OidcIssuer;
  claims: OidcClaims;
  run: JobIdentity;
}

export interface IssuerSet {
  readonly issuers: readonly OidcIssuer[];
  /** The verified job behind a token; throws a 401 (or the verifier's 503) refusal. */
  verify(token: string): Promise<VerifiedJob>;
}

/** Verifiers for `specs`; jose is loaded here, only when OIDC is on. */
export async function startIssuers(
  specs: readonly IssuerSpec[],
  http: HttpClient,
): Promise<OidcIssuer[]> {
  const { createOidcVerifier } = await import('./oidc.js');
  return specs.map((spec) => ({
    ...spec,
    verifier: createOidcVerifier({ issuer: spec.url, audience: spec.audience, http }),
  }));
}

export function issuerSet(issuers: readonly OidcIssuer[]): IssuerSet {
  const byUrl = new Map(issuers.map((issuer) => [issuer.url, issuer]));
  const names = issuers.map((i) => `${i.name} (${i.url})`).join(', ');
  return {
    issuers,
    async verify(token) {
      const iss = unverifiedIssuer(token);
      const issuer = iss === undefined ? undefined : byUrl.get(iss.replace(/\/+$/, ''));
      if (!issuer) {
        const named =
          iss === undefined ? 'names no issuer' : `is of ${JSON.stringify(iss.slice(0, 200))}`;
        throw new AuthRefusal(`The OIDC token ${named}; this kernel accepts tokens of ${names}.`, {
          status: 401,
          reason: 'unauthorized',
        });
      }
      const claims = await issuer.verifier.verify(token);
      return { issuer, claims, run: jobIdentity(issuer, claims) };
    },
  };
}

/** The `iss` a compact JWS's payload says, unverified: only to pick the verifier. */
function unverifiedIssuer(token: string): string | undefined {
  const payload = token.split('.')[1] ?? '';
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const iss = (parsed as { iss?: unknown } | null)?.iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}
