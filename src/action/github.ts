import { readFileSync } from 'node:fs';
import { formatDuration } from '../gate/duration.js';
import { parseRepository, parseRunDid } from '../plane/did.js';
import { untrusted } from '../lease/escape.js';
import { parsePlaneUrl } from '../plane/url.js';
import { describeGitHubFailure } from './github-failure.js';
import type { getOctokit } from '@actions/github';
import * as z from 'zod/mini';

/**
 * The gate on GitHub's own surfaces: a commit status for the run's commit and
 * a look at the run that holds the lease, through @actions/github's octokit
 * (the runner's proxy settings, GHES's API URL). Loaded only when a token and
 * a status context are set, so it costs nothing on the path to the first ask
 * otherwise. Best effort: the first problem of each kind is one warning, and
 * that surface is then left alone for the rest of the step.
 */

export type StatusState = 'pending' | 'success' | 'failure' | 'error';
export const MAX_DESCRIPTION = 140;

interface GitHubTarget {
  apiUrl: string;
  /** The host of GITHUB_SERVER_URL: run DIDs on it are runs this API knows. */
  serverHost: string;
  owner: string;
  repo: string;
  sha: string;
  runUrl: string | undefined;
}

/** The part of a pull_request event's payload (GITHUB_EVENT_PATH) the gate reads. */
const pullRequestEvent = z.object({
  pull_request: z.optional(z.object({ head: z.optional(z.object({ sha: z.unknown() })) })),
});

/** The commit the run is about: for pull requests the head, not the merge commit. */
export function commitSha(env: NodeJS.ProcessEnv): string | undefined {
  const isSha = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{40}$/.test(v);
  if (env.GITHUB_EVENT_NAME?.startsWith('pull_request') && env.GITHUB_EVENT_PATH) {
    try {
      const event = pullRequestEvent.safeParse(
        JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')),
      );
      const sha = event.data?.pull_request?.head?.sha;
      if (isSha(sha)) return sha;
    } catch {
      // fall back to GITHUB_SHA
    }
  }
  return isSha(env.GITHUB_SHA) ? env.GITHUB_SHA : undefined;
}

export function githubTarget(env: NodeJS.ProcessEnv): GitHubTarget | undefined {
  const api = parsePlaneUrl(env.GITHUB_API_URL || 'https://api.github.com');
  const sha = commitSha(env);
  const repository = parseRepository(env.GITHUB_REPOSITORY ?? '');
  if (!api.ok || !sha || !repository) return undefined;
  let server: URL;
  try {
    server = new URL(env.GITHUB_SERVER_URL || 'https://github.com');
  } catch {
    return undefined;
  }
  const runId = /^\d{1,20}$/.test(env.GITHUB_RUN_ID ?? '') ? env.GITHUB_RUN_ID : undefined;
  const runUrl = runId
    ? `${server.origin}/${repository.owner}/${repository.repo}/actions/runs/${runId}`
    : undefined;
  return { apiUrl: api.url, serverHost: server.host, ...repository, sha, runUrl };
}

export function clip(text: string): string {
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

type Octokit = ReturnType<typeof getOctokit>;

export class GitHubSurfaces {
  private readonly target: GitHubTarget | undefined;
  private statusesOff: boolean;
  private runsOff: boolean;
  private octokit: Promise<Octokit> | undefined;
  private readonly runs = new Map<string, string | undefined>();

  constructor(
    private readonly token: string,
    /** Empty turns commit statuses off (`status-context: off`); the holder's run is still named. */
    private readonly statusContext: string,
    env: NodeJS.ProcessEnv,
    private readonly warn: (message: string) => void,
  ) {
    this.target = token ? githubTarget(env) : undefined;
    this.statusesOff = !this.target || !statusContext;
    this.runsOff = !this.target;
  }

  private client(target: GitHubTarget): Promise<Octokit> {
    this.octokit ??= import('@actions/github').then(({ getOctokit }) =>
      getOctokit(this.token, { baseUrl: target.apiUrl, request: { timeout: 10_000 } }),
    );
    return this.octokit;
  }

  async status(state: StatusState, description: string): Promise<void> {
    const target = this.target;
    if (this.statusesOff || !target) return;
    try {
      const octokit = await this.client(target);
      await octokit.rest.repos.createCommitStatus({
        owner: target.owner,
        repo: target.repo,
        sha: target.sha,
        state,
        context: this.statusContext,
        description: clip(description),
        ...(target.runUrl ? { target_url: target.runUrl } : {}),
      });
    } catch (error) {
      this.statusesOff = true;
      const commit = `commit ${target.sha.slice(0, 7)} in ${target.owner}/${target.repo}`;
      const why = describeGitHubFailure(error, {
        apiUrl: target.apiUrl,
        what: `the commit status of ${commit}`,
        missing: commit,
        permission: 'statuses: write',
      });
      this.warn(
        `Could not set the commit status '${this.statusContext}': ${why}. The gate goes on without it.`,
      );
    }
  }

  /** What GitHub says of the run behind a holder's DID, looked up once per holder. */
  async holderRun(did: string, nowMs: number): Promise<string | undefined> {
    if (this.runs.has(did)) return this.runs.get(did);
    const run = parseRunDid(did);
    const target = this.target;
    let text: string | undefined;
    if (run && !this.runsOff && target && run.host === target.serverHost) {
      try {
        const octokit = await this.client(target);
        const answer = await octokit.rest.actions.getWorkflowRun({
          owner: run.owner,
          repo: run.repo,
          run_id: Number(run.runId),
        });
        text = describeRun(answer.data, run.repository, run.runId, nowMs);
      } catch (error) {
        this.runsOff = true;
        const named = `run ${run.runId} in ${run.repository}`;
        const why = describeGitHubFailure(error, {
          apiUrl: target.apiUrl,
          what: `the holder's ${named}`,
          missing: named,
          permission: 'actions: read',
        });
        this.warn(`Could not look up the holder's run: ${why}. The gate goes on.`);
      }
    }
    this.runs.set(did, text);
    return text;
  }
}

interface RunFields {
  name?: unknown;
  run_number?: unknown;
  status?: unknown;
  conclusion?: unknown;
  run_started_at?: unknown;
  html_url?: unknown;
  triggering_actor?: { login?: unknown } | null;
}

/** A GitHub run as the waiting job should read it; every field from GitHub is escaped. */
function describeRun(run: RunFields, repository: string, runId: string, nowMs: number): string {
  const str = (v: unknown, fallback: string) =>
    typeof v === 'string' ? untrusted(v, 120) : fallback;
  const who = str(run.triggering_actor?.login, 'someone');
  const started = typeof run.run_started_at === 'string' ? Date.parse(run.run_started_at) : NaN;
  const age = Number.isFinite(started) ? `, running for ${formatDuration(nowMs - started)}` : '';
  const number = typeof run.run_number === 'number' ? run.run_number : runId;
  const state =
    run.status === 'completed'
      ? `already completed (${str(run.conclusion, 'no conclusion')}): its lease lapses on its own within a lease time unless something still renews it`
      : `${str(run.status, 'unknown status')}${age}`;
  return `run #${number} of "${str(run.name, 'a workflow')}" in ${repository}, started by ${who}, ${state} — ${str(run.html_url, '')}`.trim();
}
