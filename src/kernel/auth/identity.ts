import { didSegment, parseRepository } from '../../plane/did.js';
import type { OidcClaims } from './oidc.js';
import { AuthRefusal } from './refusal.js';

/**
 * Who a GitHub Actions token says its bearer is: one attempt of one run. The
 * bearer may act as any DID under that run (matrix legs and jobs differ after
 * the prefix), the form `deriveActorDid` makes:
 *   did:web:<host>:<owner>:<repo>:actions:runs:<run id>:attempts:<attempt>:…
 */
export interface RunIdentity {
  repository: string;
  runId: string;
  attempt: string;
  /** Every DID this token may act as starts with this (it ends with a colon). */
  didPrefix: string;
}

export function runIdentity(claims: OidcClaims, didHost: string): RunIdentity {
  const repository = typeof claims.repository === 'string' ? claims.repository : '';
  const runId = typeof claims.run_id === 'string' ? claims.run_id : '';
  const attempt = typeof claims.run_attempt === 'string' ? claims.run_attempt : '';
  const repo = parseRepository(repository);
  if (!repo || !/^[1-9]\d{0,19}$/.test(runId) || !/^[1-9]\d{0,5}$/.test(attempt)) {
    throw new AuthRefusal(
      'The OIDC token verified but names no GitHub Actions run (its repository, run_id and run_attempt claims), so the kernel cannot tell which DIDs it may act as.',
      { status: 401, reason: 'unauthorized' },
    );
  }
  const parts = [didSegment(didHost), repo.owner, repo.repo, 'actions', 'runs', runId];
  parts.push('attempts', attempt);
  return { repository, runId, attempt, didPrefix: `did:web:${parts.join(':')}:` };
}

/** The DID host a run's DIDs carry for an issuer: github.com for GitHub's, the server's own for GHES. */
export function defaultDidHost(issuer: string): string {
  const url = new URL(issuer);
  return url.hostname === 'token.actions.githubusercontent.com' ? 'github.com' : url.host;
}
