import { isDid } from '../plane/schema.js';

/**
 * DIDs: the one encoder, the run DID the action derives, and the strict
 * parser that reads a holder's DID back into a GitHub run (untrusted input).
 *   did:web:<host>:<owner>:<repo>:actions:runs:<run id>:attempts:<n>:jobs:<job>:<nonce>
 */

export interface RunContext {
  serverUrl: string;
  repository: string;
  runId: string;
  runAttempt: string;
  job: string;
}

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
const RUN_ID_PATTERN = /^[1-9]\d{0,19}$/;
const HOST_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?$/;

/** `owner/repo` by GitHub's rules; undefined for anything else. */
export function parseRepository(value: string): { owner: string; repo: string } | undefined {
  const [owner, repo, ...rest] = value.split('/');
  if (rest.length || !owner || !repo || !OWNER_PATTERN.test(owner) || !REPO_PATTERN.test(repo)) {
    return undefined;
  }
  return { owner, repo };
}

export function runContextFromEnv(env: NodeJS.ProcessEnv): RunContext | undefined {
  const { GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_JOB } =
    env;
  if (!GITHUB_REPOSITORY || !parseRepository(GITHUB_REPOSITORY)) return undefined;
  if (!GITHUB_RUN_ID || !RUN_ID_PATTERN.test(GITHUB_RUN_ID) || !GITHUB_JOB) return undefined;
  let serverUrl = 'https://github.com';
  try {
    if (GITHUB_SERVER_URL) serverUrl = new URL(GITHUB_SERVER_URL).origin;
  } catch {
    return undefined;
  }
  const attempt =
    GITHUB_RUN_ATTEMPT && /^\d{1,6}$/.test(GITHUB_RUN_ATTEMPT) ? GITHUB_RUN_ATTEMPT : '1';
  return {
    serverUrl,
    repository: GITHUB_REPOSITORY,
    runId: GITHUB_RUN_ID,
    runAttempt: attempt,
    job: GITHUB_JOB.slice(0, 100),
  };
}

export function deriveActorDid(run: RunContext, nonce: string): string {
  const host = new URL(run.serverUrl).host;
  const [owner = '', repo = ''] = run.repository.split('/');
  const parts = [didSegment(host), didSegment(owner), didSegment(repo), 'actions', 'runs'];
  parts.push(didSegment(run.runId), 'attempts', didSegment(run.runAttempt));
  parts.push('jobs', didSegment(run.job), didSegment(nonce));
  return `did:web:${parts.join(':')}`;
}

/** The CLI's DID away from a runner: this host and user, through the same encoder. */
export function hostUserDid(host: string, user: string): string {
  const did = `did:web:${didSegment(host || 'localhost')}:users:${didSegment(user || 'user')}`;
  return isDid(did)
    ? did
    : `did:web:${didSegment(host.slice(0, 100))}:users:${didSegment(user.slice(0, 100))}`;
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

/** A holder as people should read it: its DID, and its run when we know it. */
export function describeHolder(did: string): string {
  const url = runUrlFromDid(did);
  return url ? `${did} (run: ${url})` : did;
}

/** A holder in few characters, for a commit status: its run when we know it. */
export function shortHolder(did: string): string {
  const run = parseRunDid(did);
  return run ? `run ${run.runId} of ${run.repository}` : did;
}
