import type { Principal } from './authorize.js';

/**
 * Whose GitHub compare budget a lease's descendant check spends (github/compare-budget.ts):
 * what the credential says of its bearer. An OIDC token: its repository (any workflow or
 * pull request of it can start runs, so they share one budget). A scoped key: its name. The
 * shared key, or none: the DID asked for, since everyone with the key may be anyone; the
 * kernel's own budget bounds them all together.
 */
export function compareCaller(principal: Principal, actorDid: string): string {
  if (principal.kind === 'oidc') {
    const { run } = principal;
    // A job mapped to no repository: its own issuer's job, keyed by its DID prefix.
    return run.repository ? `the repository ${run.repository}` : run.described;
  }
  if (principal.kind === 'scoped-key') return `key "${principal.key.name}"`;
  return actorDid;
}
