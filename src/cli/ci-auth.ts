import { hostname } from 'node:os';
import { didSegment } from '../plane/did.js';
import { jobDidPrefix } from '../plane/ci-job.js';
import { deploySchema, type Deploy } from '../plane/deploy.js';
import { CI_NAMES, ciOfEnv, ciTokenWay, type JobCi } from '../lease/ci-tokens.js';
import { SettingsError } from '../lease/errors.js';
import { untrusted } from '../lease/escape.js';
import {
  TOKEN_ENV,
  cachedToken,
  givenTokenSource,
  tokenClaims,
  type TokenSource,
} from '../lease/oidc-token.js';
import { keyFromEnv } from '../lease/settings.js';

/**
 * The CLI's credential, as the action's `auth` input chooses it (`--auth`, LEASE_GATE_AUTH):
 *   key   the key (LEASE_GATE_KEY), or none on a loopback kernel
 *   oidc  a token: --oidc-token-file / LEASE_GATE_OIDC_TOKEN, else the job's own (ci-tokens.ts),
 *         else a usage error naming what to set on this CI
 *   auto  a token given by flag or variable; else the key if one is set; else the job's own
 *         token if this job can get one; else none (a kernel off loopback then refuses)
 * On a job's own token the CLI names itself by the token's claims (read, not verified: the
 * kernel verifies and refuses any other DID) and lets the kernel fill the deploy from them.
 */

export const AUTH_MODES = ['auto', 'key', 'oidc'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export const AUTH_ENV = 'LEASE_GATE_AUTH';
export const AUDIENCE_ENV = 'LEASE_GATE_OIDC_AUDIENCE';

export interface AuthFlags {
  auth?: string | undefined;
  'oidc-audience'?: string | undefined;
  'id-token-var'?: string | undefined;
  'oidc-token-file'?: string | undefined;
}

/** A token to send instead of the key; `ci` when it is the job's own token of that CI. */
export interface Credential {
  bearer: TokenSource;
  ci?: JobCi;
}

/** The token to send, or undefined for the key (or none). Throws SettingsError for a bad flag. */
export function credentialOf(values: AuthFlags, env: NodeJS.ProcessEnv): Credential | undefined {
  const auth = authMode(values, env);
  const audience = audienceOf(values, env);
  const tokenFile = values['oidc-token-file'];
  if (auth === 'key') {
    if (tokenFile) {
      throw new SettingsError(
        '--auth key and --oidc-token-file contradict: the key is sent, or the token; give one.',
      );
    }
    return undefined;
  }
  if (tokenFile || env[TOKEN_ENV]) return { bearer: cachedToken(givenTokenSource(tokenFile, env)) };
  if (auth === 'auto' && keyFromEnv(env).value) return undefined;
  const ci = ciOfEnv(env);
  if (!ci) {
    if (auth === 'auto') return undefined;
    throw new SettingsError(
      `--auth oidc, but this is not a job of a CI whose token lease-gate finds (GitHub Actions, GitLab CI, CircleCI, Buildkite: none of GITHUB_ACTIONS, GITLAB_CI, CIRCLECI, BUILDKITE is 'true'): give the token with --oidc-token-file FILE or ${TOKEN_ENV}.`,
    );
  }
  const way = ciTokenWay(ci, env, { audience, idTokenVar: values['id-token-var'] });
  if ('missing' in way) {
    if (auth === 'auto') return undefined;
    throw new SettingsError(`--auth oidc on ${CI_NAMES[ci]}: ${way.missing}`);
  }
  return { bearer: cachedToken(way.source), ci };
}

function authMode(values: AuthFlags, env: NodeJS.ProcessEnv): AuthMode {
  const given = values.auth ?? (env[AUTH_ENV] || 'auto');
  if (!(AUTH_MODES as readonly string[]).includes(given)) {
    const from = values.auth === undefined ? `${AUTH_ENV} (environment)` : '--auth';
    throw new SettingsError(
      `Invalid ${from} '${untrusted(given, 40)}'. Expected 'auto', 'key' or 'oidc'.`,
    );
  }
  return given as AuthMode;
}

function audienceOf(values: AuthFlags, env: NodeJS.ProcessEnv): string | undefined {
  const given = values['oidc-audience'] ?? (env[AUDIENCE_ENV] || undefined);
  if (given !== undefined && !/^[\x21-\x7e]{1,200}$/.test(given)) {
    const from =
      values['oidc-audience'] === undefined ? `${AUDIENCE_ENV} (environment)` : '--oidc-audience';
    throw new SettingsError(
      `Invalid ${from} '${untrusted(given, 60)}'. Expected 1 to 200 printable characters without spaces.`,
    );
  }
  return given;
}

/**
 * The DID a job's own token vouches for, with one segment of this host after it (as the
 * CLI's default DID on a GitHub runner), so `acquire` and a later `release` of the same job
 * speak as one agent. GitLab's host is its issuer's; GitHub's the server's. Undefined when
 * the claims name no job of that CI (the kernel would refuse the token anyway).
 */
export function jobDid(ci: JobCi, token: string, env: NodeJS.ProcessEnv): string | undefined {
  const claims = tokenClaims(token);
  if (!claims) return undefined;
  const hostOf = (url: unknown) => {
    try {
      return typeof url === 'string' ? new URL(url).host : '';
    } catch {
      return '';
    }
  };
  const host =
    ci === 'gitlab'
      ? hostOf(claims.iss)
      : ci === 'github'
        ? hostOf(env.GITHUB_SERVER_URL || 'https://github.com')
        : '';
  const prefix = jobDidPrefix(ci, claims, host);
  return prefix === undefined ? undefined : `${prefix}${didSegment(hostname() || 'host')}`;
}

/** The variable each CI sets to the commit the job runs on. */
const COMMIT_ENV: Readonly<Record<JobCi, string>> = {
  github: 'GITHUB_SHA',
  gitlab: 'CI_COMMIT_SHA',
  circleci: 'CIRCLE_SHA1',
  buildkite: 'BUILDKITE_COMMIT',
};

/**
 * The deploy sent on a job's own token: the fields given by flags, plus the commit the CI's
 * environment names. Present even when empty: an empty deploy asks the kernel to fill every
 * field from the token (it maps the repository, which the CLI cannot know), and where the
 * token has a field, a sent value must agree with it (403 not_your_deploy).
 */
export function jobDeploy(ci: JobCi, flags: Deploy | undefined, env: NodeJS.ProcessEnv): Deploy {
  const commit = (env[COMMIT_ENV[ci]] ?? '').trim().toLowerCase();
  // Buildkite's may be `HEAD` before the agent resolves it: only a full SHA is sent.
  const known = commit && deploySchema.safeParse({ commit }).success ? { commit } : {};
  return { ...known, ...flags };
}
