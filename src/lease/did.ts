import { isDid } from '../plane/schema.js';
import {
  RUN_ID_PATTERN,
  didSegment,
  parseRepository,
  parseRunDid,
  runUrlFromDid,
} from '../plane/did.js';

/**
 * The DIDs a session speaks as: the run DID the action derives, the CLI's away from a
 * runner, and holders as people read them. The DID's shapes (the encoder, the strict
 * parsers) are the wire contract's, in plane/did.ts.
 *   did:web:<host>:<owner>:<repo>:actions:runs:<run id>:attempts:<n>:jobs:<job>:<nonce>
 */

export interface RunContext {
  serverUrl: string;
  repository: string;
  runId: string;
  runAttempt: string;
  job: string;
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
