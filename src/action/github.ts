import { readFileSync } from 'node:fs';
import { formatDuration } from '../gate/duration.js';
import { exchange } from '../plane/transport.js';
import { parsePlaneUrl } from '../plane/url.js';

/**
 * The two GitHub REST calls the gate makes: a commit status for the run's
 * commit, and a look at the run that holds the lease. Over the built-in HTTP
 * stack: octokit would add its weight to every job's start for two requests.
 */

export type StatusState = 'pending' | 'success' | 'failure' | 'error';

export interface GitHubContext {
  apiUrl: string;
  /** The host of GITHUB_SERVER_URL: run DIDs on it are runs this API knows. */
  serverHost: string;
  repository: string;
  sha: string;
  runUrl: string | undefined;
}

const TIMEOUT_MS = 10_000;
export const MAX_DESCRIPTION = 140;

/** The commit the run is about: for pull requests the head, not the merge commit. */
export function commitSha(env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITHUB_EVENT_NAME?.startsWith('pull_request') && env.GITHUB_EVENT_PATH) {
    try {
      const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as {
        pull_request?: { head?: { sha?: unknown } };
      };
      const sha = event.pull_request?.head?.sha;
      if (typeof sha === 'string' && /^[0-9a-f]{40}$/.test(sha)) return sha;
    } catch {
      // fall back to GITHUB_SHA
    }
  }
  return env.GITHUB_SHA || undefined;
}

export function githubContext(env: NodeJS.ProcessEnv): GitHubContext | undefined {
  const api = parsePlaneUrl(env.GITHUB_API_URL || 'https://api.github.com');
  const sha = commitSha(env);
  if (!api.ok || !sha || !env.GITHUB_REPOSITORY?.includes('/')) return undefined;
  const server = (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  const runUrl = env.GITHUB_RUN_ID
    ? `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
    : undefined;
  return {
    apiUrl: api.url,
    serverHost: new URL(server).host,
    repository: env.GITHUB_REPOSITORY,
    sha,
    runUrl,
  };
}

export class GitHubError extends Error {
  override name = 'GitHubError';
}

async function call(
  token: string,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
): Promise<unknown> {
  let answer;
  try {
    answer = await exchange({
      method,
      url,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${token}`,
        'user-agent': 'lease-gate',
        'x-github-api-version': '2022-11-28',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new GitHubError(`${method} ${url}: ${(error as Error).message}`);
  }
  if (answer.status < 200 || answer.status >= 300) {
    let message = '';
    try {
      message = String((JSON.parse(answer.text) as { message?: unknown }).message ?? '');
    } catch {
      // not JSON
    }
    throw new GitHubError(`${method} ${url}: ${answer.status}${message ? ` ${message}` : ''}`);
  }
  return answer.text ? (JSON.parse(answer.text) as unknown) : undefined;
}

export function clip(text: string): string {
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

export async function postStatus(
  token: string,
  context: GitHubContext,
  status: { state: StatusState; description: string; context: string },
): Promise<void> {
  await call(
    token,
    'POST',
    `${context.apiUrl}/repos/${context.repository}/statuses/${context.sha}`,
    {
      state: status.state,
      context: status.context,
      description: clip(status.description),
      ...(context.runUrl ? { target_url: context.runUrl } : {}),
    },
  );
}

export interface HolderRun {
  text: string;
  completed: boolean;
}

/** A GitHub run as the waiting job should read it. */
export async function describeRun(
  token: string,
  apiUrl: string,
  repository: string,
  runId: string,
  nowMs: number,
): Promise<HolderRun> {
  const run = (await call(token, 'GET', `${apiUrl}/repos/${repository}/actions/runs/${runId}`)) as {
    name?: string;
    run_number?: number;
    status?: string;
    conclusion?: string | null;
    run_started_at?: string;
    html_url?: string;
    triggering_actor?: { login?: string };
    actor?: { login?: string };
  };
  const who = run.triggering_actor?.login ?? run.actor?.login ?? 'someone';
  const started = run.run_started_at ? Date.parse(run.run_started_at) : Number.NaN;
  const age = Number.isFinite(started) ? `, running for ${formatDuration(nowMs - started)}` : '';
  const completed = run.status === 'completed';
  const state = completed
    ? `already completed (${run.conclusion ?? 'no conclusion'}): its lease lapses on its own within a lease time unless something still renews it`
    : `${run.status ?? 'unknown status'}${age}`;
  return {
    completed,
    text: `run #${run.run_number ?? runId} of "${run.name ?? 'a workflow'}" in ${repository}, started by ${who}, ${state} — ${run.html_url ?? ''}`.trim(),
  };
}
