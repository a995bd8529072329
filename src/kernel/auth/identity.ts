import { GITHUB_ISSUER_URL } from './github-issuer.js';
import { jobIdentity, type JobIdentity } from './mappings.js';
import type { OidcClaims } from './oidc.js';

/**
 * Who a token says its bearer is (mappings.ts has every CI's): for GitHub Actions, one
 * attempt of one run. The bearer may act as any DID under that run (matrix legs and jobs
 * differ after the prefix), the form `deriveActorDid` makes:
 *   did:web:<host>:<owner>:<repo>:actions:runs:<run id>:attempts:<attempt>:…
 */
export type RunIdentity = JobIdentity;

/** A GitHub Actions token's run, for an issuer at `issuer` (GitHub's own by default). */
export function runIdentity(
  claims: OidcClaims,
  didHost: string,
  issuer = GITHUB_ISSUER_URL,
): RunIdentity {
  return jobIdentity(
    { name: 'github', kind: 'github', url: issuer, audience: '', didHost, repositories: new Map() },
    claims,
  );
}

/** The DID host a run's DIDs carry for an issuer: github.com for GitHub's, the server's own for GHES. */
export function defaultDidHost(issuer: string): string {
  const url = new URL(issuer);
  return url.hostname === 'token.actions.githubusercontent.com' ? 'github.com' : url.host;
}
