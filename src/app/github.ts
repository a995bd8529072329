import { GitHubError, retryWait } from '../github/rest.js';
import {
  hookDeliveries,
  nextCursor,
  type DeliveryCalls,
  type HookDelivery,
} from './hook-deliveries.js';
import { runCalls, type Repo, type RunCalls, type RunInfo } from './github-runs.js';
import { appBearers, type AppKey } from './github-token.js';
import {
  createCall,
  transport,
  type AttemptControls,
  type TransportOptions,
} from './github-transport.js';

export { retryWait };
export { nextCursor };
export type { AttemptControls, HookDelivery, Repo, RunInfo };

/**
 * GitHub as the App installation: an App JWT from the private key and installation
 * tokens (github-token.ts), and the few REST calls the protection rule needs
 * (github-runs.ts, hook-deliveries.ts), each retried within a budget
 * (github-transport.ts): 5xx and network failures with back-off, rate limits (429, or
 * 403 with `retry-after` / `x-ratelimit-remaining: 0`) after the time GitHub names.
 */

/**
 * Whether a failed POST may still have been applied by GitHub: no final answer (a
 * network failure, 5xx past the retry budget) may have been; a 4xx answer was not.
 */
export function mayHaveApplied(error: unknown): boolean {
  return !(error instanceof GitHubError && error.status >= 400 && error.status < 500);
}

/** The App's calls: the delivery calls (hook-deliveries.ts), the run and review calls (github-runs.ts). */
export interface GitHubApp extends DeliveryCalls, RunCalls {
  /** A token of the installation (cached); a GitHubError 404 for an unknown installation. */
  token(installationId: number): Promise<string>;
}

export interface GitHubAppOptions extends TransportOptions, AppKey {}

export function createGitHubApp(options: GitHubAppOptions): GitHubApp {
  const t = transport(options);
  const bearers = appBearers(t, options);
  const call = createCall(t, bearers);
  return {
    ...hookDeliveries((path) => call('GET', 'app', path)),
    ...runCalls(call),
    token: (id) => bearers.token(id, false),
  };
}
