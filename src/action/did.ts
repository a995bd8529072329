/**
 * The default actor DID names the run it belongs to, so that anyone refused by
 * it can be sent to that run:
 *   did:web:<host>:<owner>:<repo>:actions:runs:<run id>:attempts:<n>:jobs:<job>:<nonce>
 * The nonce tells apart executions that share everything else (matrix legs).
 */

export interface RunContext {
  serverUrl: string;
  repository: string;
  runId: string;
  runAttempt: string;
  job: string;
}

/** Percent-encodes everything outside DID idchars, so a segment never holds a colon. */
const seg = (value: string) =>
  Array.from(new TextEncoder().encode(value), (byte) => {
    const char = String.fromCharCode(byte);
    return /[A-Za-z0-9._-]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');

export function runContextFromEnv(env: NodeJS.ProcessEnv): RunContext | undefined {
  const { GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_JOB } =
    env;
  if (!GITHUB_REPOSITORY?.includes('/') || !GITHUB_RUN_ID || !GITHUB_JOB) return undefined;
  return {
    serverUrl: GITHUB_SERVER_URL || 'https://github.com',
    repository: GITHUB_REPOSITORY,
    runId: GITHUB_RUN_ID,
    runAttempt: GITHUB_RUN_ATTEMPT || '1',
    job: GITHUB_JOB,
  };
}

export function deriveActorDid(run: RunContext, nonce: string): string {
  const host = new URL(run.serverUrl).host;
  const [owner = '', repo = ''] = run.repository.split('/');
  const parts = [seg(host), seg(owner), seg(repo), 'actions', 'runs', seg(run.runId)];
  parts.push('attempts', seg(run.runAttempt), 'jobs', seg(run.job), seg(nonce));
  return `did:web:${parts.join(':')}`;
}

export interface RunDid {
  host: string;
  repository: string;
  runId: string;
  attempt: string;
}

/** The parts of a DID made by deriveActorDid; undefined for any other DID. */
export function parseRunDid(did: string): RunDid | undefined {
  if (!did.startsWith('did:web:')) return undefined;
  const parts = did.slice('did:web:'.length).split(':');
  if (parts.length !== 11) return undefined;
  const [host, owner, repo, actions, runs, runId, attempts, attempt, jobs] = parts.map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return '';
    }
  });
  const labels =
    actions === 'actions' && runs === 'runs' && attempts === 'attempts' && jobs === 'jobs';
  if (
    !labels ||
    !host ||
    !owner ||
    !repo ||
    !/^\d+$/.test(runId ?? '') ||
    !/^\d+$/.test(attempt ?? '')
  ) {
    return undefined;
  }
  return { host, repository: `${owner}/${repo}`, runId: runId!, attempt: attempt! };
}

/** The run URL behind a DID made by deriveActorDid; undefined for any other DID. */
export function runUrlFromDid(did: string): string | undefined {
  const run = parseRunDid(did);
  if (!run) return undefined;
  try {
    const path = [
      ...run.repository.split('/'),
      'actions',
      'runs',
      run.runId,
      'attempts',
      run.attempt,
    ]
      .map(encodeURIComponent)
      .join('/');
    return new URL(`https://${run.host}/${path}`).href;
  } catch {
    return undefined;
  }
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
