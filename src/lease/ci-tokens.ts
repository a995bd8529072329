import type { CiKind } from '../plane/ci-job.js';
import { CiTokenError, tokenFromCommand, type TokenCommand } from './ci-exec.js';
import { SettingsError } from './errors.js';
import { untrusted } from './escape.js';
import {
  DEFAULT_AUDIENCE,
  runnerCanIssue,
  runnerTokenSource,
  tokenClaims,
  tokenExpiryMs,
  type TokenSource,
} from './oidc-token.js';

/**
 * The job's own OIDC token, found the way each CI hands it to a job, for the CLI's
 * `--auth oidc|auto`. Each source is asked again as cachedToken() needs a fresh token:
 *
 *   GitHub Actions  the runner's token service (ACTIONS_ID_TOKEN_REQUEST_URL), any audience
 *   GitLab CI       the variable the job's `id_tokens:` names (LEASE_GATE_ID_TOKEN by default);
 *                   its audience is the job's `aud:`; issued once, for the job's timeout: never renewed
 *   CircleCI        $CIRCLE_OIDC_TOKEN_V2 (audience: the organization's id, one hour), then
 *                   `circleci run oidc get` for a fresh one; with an audience, always the command
 *   Buildkite       `buildkite-agent oidc request-token --audience AUD` (five minutes), each time
 */

export type JobCi = Exclude<CiKind, 'custom'>;

export const ID_TOKEN_ENV = 'LEASE_GATE_ID_TOKEN';
export const CIRCLECI_TOKEN_ENV = 'CIRCLE_OIDC_TOKEN_V2';

export const CI_NAMES: Readonly<Record<JobCi, string>> = {
  github: 'GitHub Actions',
  gitlab: 'GitLab CI',
  circleci: 'CircleCI',
  buildkite: 'Buildkite',
};

/** CircleCI's variable is used while it has this long left; after, the command mints another. */
const ENV_TOKEN_MARGIN_MS = 150_000;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/** The CI this process runs on, by the variable each sets in every job; undefined elsewhere. */
export function ciOfEnv(env: NodeJS.ProcessEnv): JobCi | undefined {
  if (env.GITHUB_ACTIONS === 'true') return 'github';
  if (env.GITLAB_CI === 'true') return 'gitlab';
  if (env.CIRCLECI === 'true') return 'circleci';
  if (env.BUILDKITE === 'true') return 'buildkite';
  return undefined;
}

export interface CiTokenOptions {
  /** The audience to ask for (GitHub, Buildkite, CircleCI's command); GitLab's token is checked against it. */
  audience?: string | undefined;
  /** GitLab: the variable the job's `id_tokens:` names. */
  idTokenVar?: string | undefined;
  now?: () => number;
  /** Runs a CI tool for a token (tests give their own PATH through `env`). */
  run?: (command: TokenCommand) => Promise<string>;
}

/** How this job gets its token, or what to set on its CI so that it can. */
export type CiTokenWay = { ci: JobCi; source: TokenSource } | { ci: JobCi; missing: string };

/** The way to this job's token on `ci`; throws SettingsError for a bad flag (variable name, audience). */
export function ciTokenWay(
  ci: JobCi,
  env: NodeJS.ProcessEnv,
  options: CiTokenOptions = {},
): CiTokenWay {
  const now = options.now ?? Date.now;
  const run = options.run ?? ((command: TokenCommand) => tokenFromCommand(command));
  switch (ci) {
    case 'github':
      return runnerCanIssue(env)
        ? { ci, source: runnerTokenSource(env, options.audience ?? DEFAULT_AUDIENCE) }
        : {
            ci,
            missing:
              'this job cannot ask the runner for a token (ACTIONS_ID_TOKEN_REQUEST_URL is not set): give the job `permissions: id-token: write`.',
          };
    case 'gitlab':
      return gitlabWay(env, options, now);
    case 'circleci':
      return circleciWay(env, options.audience, now, run);
    case 'buildkite': {
      if (!env.BUILDKITE_AGENT_ACCESS_TOKEN) {
        return {
          ci,
          missing:
            "buildkite-agent asks for the job's token with BUILDKITE_AGENT_ACCESS_TOKEN, which the agent sets in each job's environment, and it is not set here: run the command in the job's own step (not a container without the agent's environment).",
        };
      }
      const audience = options.audience ?? DEFAULT_AUDIENCE;
      const args = ['oidc', 'request-token', '--audience', audience];
      return { ci, source: () => run({ program: 'buildkite-agent', args, env }) };
    }
  }
}

function gitlabWay(env: NodeJS.ProcessEnv, options: CiTokenOptions, now: () => number): CiTokenWay {
  const name = options.idTokenVar ?? ID_TOKEN_ENV;
  if (!VARIABLE.test(name)) {
    throw new SettingsError(
      `Invalid --id-token-var '${untrusted(name, 60)}'. Expected the name of the variable the job's \`id_tokens:\` sets (letters, digits, _).`,
    );
  }
  const token = (env[name] ?? '').trim();
  const aud = options.audience ?? DEFAULT_AUDIENCE;
  if (!token) {
    return {
      ci: 'gitlab',
      missing: `GitLab gives a job an ID token only in the variable its \`id_tokens:\` names, and ${name} is not set: add \`id_tokens: { ${name}: { aud: ${aud} } }\` to the job${name === ID_TOKEN_ENV ? ' (or name another variable with --id-token-var NAME)' : ''}.`,
    };
  }
  if (!JWT.test(token)) {
    throw new SettingsError(`Invalid ${name}: expected one compact JWT (the job's id_tokens).`);
  }
  const claimed = tokenClaims(token)?.aud;
  const audiences = Array.isArray(claimed) ? claimed : [claimed];
  if (options.audience !== undefined && !audiences.includes(options.audience)) {
    throw new SettingsError(
      `The ID token in ${name} is not for the audience '${untrusted(options.audience, 100)}': set \`aud: ${untrusted(options.audience, 100)}\` under the job's \`id_tokens: ${name}:\`.`,
    );
  }
  return {
    ci: 'gitlab',
    source: () => {
      const exp = tokenExpiryMs(token);
      if (exp !== undefined && exp <= now()) {
        return Promise.reject(
          new CiTokenError(
            `The GitLab ID token in ${name} expired at ${new Date(exp).toISOString()}: GitLab issues it once per job, lasting the job's timeout, and cannot renew it. Give the job a \`timeout:\` longer than the hold.`,
          ),
        );
      }
      return Promise.resolve(token);
    },
  };
}

function circleciWay(
  env: NodeJS.ProcessEnv,
  audience: string | undefined,
  now: () => number,
  run: (command: TokenCommand) => Promise<string>,
): CiTokenWay {
  const command = (aud?: string): TokenCommand => ({
    program: 'circleci',
    args: [
      'run',
      'oidc',
      'get',
      ...(aud === undefined ? [] : ['--claims', JSON.stringify({ aud })]),
    ],
    env,
  });
  if (audience !== undefined) return { ci: 'circleci', source: () => run(command(audience)) };
  const given = (env[CIRCLECI_TOKEN_ENV] ?? '').trim();
  if (!given) {
    return {
      ci: 'circleci',
      missing: `CircleCI sets ${CIRCLECI_TOKEN_ENV} in a job that may have OIDC tokens, and it is not set here; or ask for a token of your audience with --oidc-audience AUD (\`circleci run oidc get\`).`,
    };
  }
  return {
    ci: 'circleci',
    source: () => {
      // The variable lasts an hour from the job's start; a longer hold asks for another.
      const exp = tokenExpiryMs(given);
      return exp !== undefined && exp - ENV_TOKEN_MARGIN_MS > now()
        ? Promise.resolve(given)
        : run(command());
    },
  };
}
