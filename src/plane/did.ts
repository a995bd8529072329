import { isDid } from './schema.js';

/**
 * The DID's shapes, part of the wire contract: the one segment encoder, GitHub's
 * repository names, and the strict readers of a run DID (untrusted input), read alike
 * by the session core (lease/did.ts, which derives the DIDs), the kernel (revokes and
 * OIDC identities) and the console page. No I/O and no node: imports, so the page may
 * bundle it.
 *   did:web:<host>:<owner>:<repo>:actions:runs:<run id>:attempts:<n>:jobs:<job>:<nonce>
 */

/** A DID segment: UTF-8 bytes outside DID idchars percent-encoded, so a segment never holds a colon. */
export function didSegment(value: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(value)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9._-]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** GitHub's naming rules: owners are 1–39 letters, digits or single hyphens; repos 1–100 of [A-Za-z0-9._-]. */
export const OWNER_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
export const REPO_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;
export const RUN_ID_PATTERN = /^[1-9]\d{0,19}$/;
export const HOST_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?$/;

/** `owner/repo` by GitHub's rules; undefined for anything else. */
export function parseRepository(value: string): { owner: string; repo: string } | undefined {
  const [owner, repo, ...rest] = value.split('/');
  if (rest.length || !owner || !repo || !OWNER_PATTERN.test(owner) || !REPO_PATTERN.test(repo)) {
    return undefined;
  }
  return { owner, repo };
}

export interface RunDid {
  host: string;
  owner: string;
  repo: string;
  repository: string;
  runId: string;
  attempt: string;
}

/**
 * The run behind a DID made by deriveActorDid; undefined for any other DID.
 * Strict: owner and repo by GitHub's rules (never percent-encoded), numeric
 * run and attempt, a plain host name; nothing is decoded into a path.
 */
export function parseRunDid(did: string): RunDid | undefined {
  if (!isDid(did) || !did.startsWith('did:web:')) return undefined;
  const parts = did.slice('did:web:'.length).split(':');
  if (parts.length !== 11) return undefined;
  const [
    rawHost = '',
    owner = '',
    repo = '',
    actions,
    runs,
    runId = '',
    attempts,
    attempt = '',
    jobs,
  ] = parts;
  const host = rawHost.replace(/%3A/gi, ':');
  const labelsOk =
    actions === 'actions' && runs === 'runs' && attempts === 'attempts' && jobs === 'jobs';
  if (
    !labelsOk ||
    !HOST_PATTERN.test(host) ||
    !OWNER_PATTERN.test(owner) ||
    !REPO_PATTERN.test(repo) ||
    !RUN_ID_PATTERN.test(runId) ||
    !/^\d{1,6}$/.test(attempt)
  ) {
    return undefined;
  }
  return { host, owner, repo, repository: `${owner}/${repo}`, runId, attempt };
}

/**
 * The run attempt a DID speaks for, by the rule an OIDC token's check uses
 * (kernel/auth/identity.ts): `did:web:<host>:<owner>:<repo>:actions:runs:<id>:attempts:<n>`
 * and whatever follows, ignored, so every DID one token may act as has one key.
 * Host, owner and repo compared without case (GitHub's are case-insensitive),
 * run id and attempt as numbers. Undefined for a DID of no run.
 */
export function runAttemptKey(did: string): string | undefined {
  if (!did.startsWith('did:web:')) return undefined;
  const [host, owner, repo, actions, runs, runId = '', attempts, attempt = ''] = did
    .slice('did:web:'.length)
    .split(':');
  const labelsOk = actions === 'actions' && runs === 'runs' && attempts === 'attempts';
  if (!labelsOk || !host || !owner || !repo || !/^\d+$/.test(runId) || !/^\d+$/.test(attempt)) {
    return undefined;
  }
  const number = (digits: string) => digits.replace(/^0+(?=\d)/, '');
  return [host, owner, repo].join(':').toLowerCase() + `:${number(runId)}:${number(attempt)}`;
}

/** The run URL behind a DID made by deriveActorDid; undefined for any other DID. */
export function runUrlFromDid(did: string): string | undefined {
  const run = parseRunDid(did);
  if (!run) return undefined;
  const path = [run.owner, run.repo, 'actions', 'runs', run.runId, 'attempts', run.attempt]
    .map(encodeURIComponent)
    .join('/');
  return `https://${run.host}/${path}`;
}
