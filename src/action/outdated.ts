import { parseRepository } from '../plane/did.js';
import { untrusted } from '../lease/escape.js';
import type { Deploy } from '../plane/deploy.js';
import { parsePlaneUrl } from '../plane/url.js';
import type { getOctokit } from '@actions/github';
import { causeText } from '../errors.js';

/**
 * Never an older commit: once granted, the gate compares its commit with the
 * commit of the last grant on the resource from its repository (the kernel
 * answers it with the grant as `previous`) through GitHub's compare API,
 * `GET /repos/{owner}/{repo}/compare/{live}...{ours}`. `behind` means ours
 * is an ancestor of the live one: outdated. `ahead` (a revert is a new
 * commit, so it is ahead too) and `identical` (a rerun) deploy; `diverged`
 * (a force-push, or another branch) deploys with a note. When the compare
 * cannot be made, the gate says so and goes on: a missing answer never
 * blocks a deploy. @actions/github is imported only when a compare is made.
 */

export type Comparison =
  /** Nothing to compare with: the first grant here from this repository, or a plane that does not say. */
  | { kind: 'first' }
  | { kind: 'ahead' | 'identical' | 'diverged' | 'behind'; live: Deploy }
  | { kind: 'unknown'; live: Deploy | undefined; why: string };

export interface CompareOptions {
  ours: Deploy | undefined;
  previous: Deploy | undefined;
  /** Empty: no GitHub call (and the comparison is unknown). Never logged. */
  token: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

type Octokit = ReturnType<typeof getOctokit>;

export async function compareWithLive(options: CompareOptions): Promise<Comparison> {
  const { ours, previous: live } = options;
  if (!live) return { kind: 'first' };
  const unknown = (why: string): Comparison => ({ kind: 'unknown', live, why });
  if (!ours?.commit) return unknown('this run names no commit');
  if (!live.commit) return unknown('the last grant named no commit');
  if (live.repository !== ours.repository) {
    return unknown(`the last grant came from another repository (${live.repository ?? 'none'})`);
  }
  if (live.commit === ours.commit) return { kind: 'identical', live };
  const repository = parseRepository(ours.repository ?? '');
  if (!repository) return unknown('this run names no repository');
  if (!options.token) return unknown("no 'github-token' to ask GitHub's compare API with");
  const api = parsePlaneUrl(options.env.GITHUB_API_URL || 'https://api.github.com');
  if (!api.ok) return unknown('GITHUB_API_URL is not an https:// URL');
  let octokit: Octokit;
  try {
    const { getOctokit } = await import('@actions/github');
    octokit = getOctokit(options.token, {
      baseUrl: api.url,
      request: { timeout: options.timeoutMs ?? 10_000 },
    });
  } catch (error) {
    return unknown(`cannot load the GitHub client: ${describe(error)}`);
  }
  try {
    const answer = await octokit.rest.repos.compareCommitsWithBasehead({
      ...repository,
      basehead: `${live.commit}...${ours.commit}`,
      // Only the status is read: keep GitHub's answer small.
      per_page: 1,
    });
    // Typed by Octokit, still read as unknown: a GitHub Enterprise answer may differ.
    const status: unknown = answer.data.status;
    if (
      status === 'ahead' ||
      status === 'behind' ||
      status === 'identical' ||
      status === 'diverged'
    ) {
      return { kind: status, live };
    }
    return unknown(`GitHub's compare API answered an unknown status (${describe(status)})`);
  } catch (error) {
    return unknown(`GitHub's compare API failed: ${describe(error)}`);
  }
}

/** A commit as a link a person can follow (the repository's own page on GITHUB_SERVER_URL). */
export function commitUrl(deploy: Deploy, env: NodeJS.ProcessEnv): string | undefined {
  if (!deploy.repository || !deploy.commit) return undefined;
  const server = (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  return `${server}/${deploy.repository}/commit/${deploy.commit}`;
}

/** The live deploy in one line: its commit, and the run that deployed it. */
export function describeLive(live: Deploy): string {
  const commit = live.commit ?? 'an unnamed commit';
  const run = live.runUrl ?? (live.runNumber !== undefined ? `run ${live.runNumber}` : undefined);
  return run ? `${commit} (${run})` : commit;
}

function describe(error: unknown): string {
  if (typeof error !== 'object' || error === null) return untrusted(causeText(error), 100);
  const status = 'status' in error ? error.status : undefined;
  return untrusted(`${typeof status === 'number' ? `${status} ` : ''}${causeText(error)}`, 200);
}
