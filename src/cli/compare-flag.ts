import { readFile } from 'node:fs/promises';
import { createGitHubCompare, type GitHubCompare } from '../github/compare.js';
import { createHttpClient } from '../http/client.js';
import { urlForDisplay } from '../http/url-display.js';
import { untrusted } from '../lease/escape.js';
import { parsePlaneUrl } from '../plane/url.js';
import { realSleep, systemClock } from '../plane/time.js';
import { UsageError } from './options.js';

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

/** `--github-token-file` and `--github-api-url`, checked: the file is read by openCompare(). */
export interface GitHubFlags {
  tokenFile: string;
  apiUrl: string;
}

/**
 * `--github-token-file FILE [--github-api-url URL]`: the kernel may ask GitHub's compare
 * whether a commit that completed the step before contains the one asking (a descendant
 * passes the promotion order). The token is read from the file at each question, so a
 * rotated one is used without a restart, and is never printed or kept; the URL must be
 * https: (plain http: to loopback only), since the token goes with every question.
 */
export function githubFlags(
  values: { 'github-token-file'?: string | undefined; 'github-api-url'?: string | undefined },
  promote: Map<string, string> | undefined,
): GitHubFlags | undefined {
  const file = values['github-token-file'];
  const rawUrl = values['github-api-url'];
  if (file === undefined) {
    if (rawUrl !== undefined)
      throw new UsageError('--github-api-url needs --github-token-file FILE.');
    return undefined;
  }
  if (!promote)
    throw new UsageError(
      '--github-token-file is for the promotion order: give it with --promote FROM->TO.',
    );
  const url = parsePlaneUrl(rawUrl ?? DEFAULT_GITHUB_API_URL);
  if (!url.ok)
    throw new UsageError(
      `Invalid --github-api-url '${urlForDisplay(rawUrl ?? '')}'. Expected an https:// URL such as ${DEFAULT_GITHUB_API_URL} or https://HOST/api/v3, without credentials, query or fragment (plain http:// only on loopback).`,
    );
  return { tokenFile: file, apiUrl: url.url };
}

/** GitHub's compare for the promotion order, its token file read once now (it must hold one). */
export async function openCompare(
  { tokenFile: file, apiUrl }: GitHubFlags,
  env: NodeJS.ProcessEnv,
): Promise<{ compare: GitHubCompare; apiUrl: string; close(): Promise<void> }> {
  const token = async (): Promise<string> => {
    let text: string;
    try {
      text = (await readFile(file, 'utf8')).trim();
    } catch (error) {
      throw new UsageError(
        `Cannot read --github-token-file '${untrusted(file, 200)}': ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}.`,
        { cause: error },
      );
    }
    if (!/^[\x21-\x7e]{1,4096}$/.test(text))
      throw new UsageError(
        `--github-token-file '${untrusted(file, 200)}' holds no token: expected one line of printable ASCII.`,
      );
    return text;
  };
  // Checked before listening: a kernel that cannot ask would refuse every descendant.
  await token();
  const http = createHttpClient({ env });
  const compare = createGitHubCompare({
    apiUrl,
    http,
    token,
    clock: systemClock,
    sleep: realSleep,
    wallNow: Date.now,
    random: Math.random,
  });
  return { compare, apiUrl, close: () => http.close() };
}
