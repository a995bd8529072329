import { kindOfIssuer } from '../plane/ci-job.js';
import { didSegment } from '../plane/did.js';
import { isLoopbackHost } from '../plane/url.js';
import type { LedgerEntry } from './entry.js';

/**
 * A grant's `issuer` (the OIDC issuer whose token its holder proved itself with), as
 * `verify` checks it: an https URL (plain http only on loopback, as the kernel fetches keys),
 * and the holder's DID in that issuer's namespace (plane/ci-job.ts), so a signer who swaps
 * the issuer of a grant is caught:
 *
 *   GitHub's         a run's: did:web:<any host>:<owner>:<repo>:actions:runs:<id>:attempts:<n>:
 *                    (its DIDs name their own host, --oidc-did-host)
 *   CircleCI's       did:web:oidc.circleci.com:circleci:orgs:<the org id in the URL>:
 *   Buildkite's      did:web:agent.buildkite.com:buildkite:
 *   gitlab.com, and any other URL whose DIDs say gitlab: did:web:<its host>:gitlab:projects:
 *   any other issuer (GHES, custom): not checked, its kind is not in the ledger
 *
 * The reason it does not hold, or undefined.
 */
export function issuerProblem(e: LedgerEntry): string | undefined {
  if (e.issuer === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(e.issuer);
  } catch {
    return `its issuer ${JSON.stringify(e.issuer.slice(0, 200))} is not a URL`;
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(host)))) {
    return `its issuer ${e.issuer} is not an https:// URL (plain http:// only on loopback)`;
  }
  const expected = namespaceOf(url, e.actorDid);
  if (expected !== undefined && !e.actorDid.startsWith(expected)) {
    return `its holder ${e.actorDid} is not in the namespace of its issuer ${e.issuer} (${expected}…)`;
  }
  return undefined;
}

/** A GitHub run attempt's DID prefix (plane/ci-job.ts), whatever its host. */
const GITHUB_RUN = /^did:web:[^:]+:[^:]+:[^:]+:actions:runs:\d+:attempts:\d+:/;

function namespaceOf(url: URL, did: string): string | undefined {
  switch (kindOfIssuer(url.href)) {
    case 'github':
      // Any host (--oidc-did-host), but always a run's attempt: a grant of another CI's job
      // relabelled as GitHub's is caught.
      return GITHUB_RUN.test(did)
        ? did
        : 'did:web:<host>:<owner>:<repo>:actions:runs:<id>:attempts:<n>:';
    case 'circleci': {
      const org = /^\/org\/([^/]+)\/?$/.exec(url.pathname)?.[1] ?? '?';
      return `did:web:oidc.circleci.com:circleci:orgs:${org}:`;
    }
    case 'buildkite':
      return 'did:web:agent.buildkite.com:buildkite:';
    case 'gitlab':
      return `did:web:${didSegment(url.host)}:gitlab:projects:`;
    case 'custom':
    case undefined: {
      // A self-managed GitLab (or a loopback one): its DIDs say gitlab after the host.
      const gitlab = `did:web:${didSegment(url.host)}:gitlab:projects:`;
      return /^did:web:[^:]+:gitlab:projects:/.test(did) ? gitlab : undefined;
    }
  }
}
