import type { CiKind } from '../../src/plane/ci-job.js';
import { RUN_CLAIMS, startFakeIssuer, type FakeIssuer, type TokenOptions } from './fake-oidc.js';

/**
 * Fake OIDC issuers of each CI lease-gate knows, on loopback: fake-oidc.ts's issuer (own
 * keys, discovery, JWKS) with each CI's claim shape, as its docs give it (checked December
 * 2026). One project throughout, acme/shop, deploying commit SHA from main, so a test can
 * map the three CIs' projects to one repository.
 *
 * - GitLab: docs.gitlab.com/ci/secrets/id_token_authentication (the iss is the instance
 *   URL; ids are decimal strings except runner_id, a number; ref_protected is "true"/"false").
 * - CircleCI: circleci.com/docs/openid-connect-tokens (iss https://oidc.circleci.com/org/<org-id>,
 *   aud the org id unless the job asks for another; claims prefixed oidc.circleci.com/; no sha).
 * - Buildkite: buildkite.com/docs/agent/v3/cli-oidc (iss https://agent.buildkite.com for every
 *   organization; build_number a number; job_id and the other ids UUIDs).
 */

export type { TokenOptions } from './fake-oidc.js';

/** The commit the fakes' jobs build. */
export const SHA = '0123456789abcdef0123456789abcdef01234567';

export const GITLAB_CLAIMS = {
  sub: 'project_path:acme/shop:ref_type:branch:ref:main',
  namespace_id: '77',
  namespace_path: 'acme',
  project_id: '4201',
  project_path: 'acme/shop',
  user_id: '31',
  user_login: 'octocat',
  user_email: 'octocat@example.com',
  user_access_level: 'maintainer',
  pipeline_id: '9001',
  pipeline_source: 'push',
  job_id: '55501',
  ref: 'main',
  ref_type: 'branch',
  ref_path: 'refs/heads/main',
  ref_protected: 'true',
  environment: 'production',
  environment_protected: 'true',
  deployment_tier: 'production',
  runner_id: 12,
  runner_environment: 'gitlab-hosted',
  sha: SHA,
  // The fake's token() puts its own host in place of gitlab.example.com.
  ci_config_ref_uri: 'gitlab.example.com/acme/shop//.gitlab-ci.yml@refs/heads/main',
  ci_config_sha: SHA,
  project_visibility: 'private',
  // Newer GitLab: the project the job runs in (differs from project_id in a fork's MR pipeline).
  job_project_id: '4201',
  job_project_path: 'acme/shop',
  job_namespace_id: '77',
  job_namespace_path: 'acme',
};

/** The CircleCI organization the fake issues for (its issuer URL ends /org/<this>). */
export const CIRCLECI_ORG_ID = '6a1b2c3d-4e5f-4789-abcd-ef0123456789';
const CIRCLECI_PROJECT_ID = '3b7d2f3e-1c2a-4a5b-9d10-2bbf3c4d5e6f';
const CIRCLECI_USER_ID = 'c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8';

export const CIRCLECI_CLAIMS = {
  sub: `org/${CIRCLECI_ORG_ID}/project/${CIRCLECI_PROJECT_ID}/user/${CIRCLECI_USER_ID}`,
  'oidc.circleci.com/org-id': CIRCLECI_ORG_ID,
  'oidc.circleci.com/project-id': CIRCLECI_PROJECT_ID,
  'oidc.circleci.com/pipeline-id': '8c6c3c7e-0f4b-4a8e-9d55-3f1e2a7b9c01',
  'oidc.circleci.com/pipeline-definition-id': 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9',
  'oidc.circleci.com/workflow-id': '1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a10',
  'oidc.circleci.com/job-id': '9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d',
  'oidc.circleci.com/vcs-origin': 'github.com/acme/shop',
  'oidc.circleci.com/vcs-ref': 'refs/heads/main',
  'oidc.circleci.com/context-ids': ['a74579f1-2e7d-451e-b009-5c082ad2729e'],
  'oidc.circleci.com/ssh-rerun': false,
};

export const BUILDKITE_CLAIMS = {
  sub: `organization:acme:pipeline:shop:ref:refs/heads/main:commit:${SHA}:step:deploy`,
  organization_slug: 'acme',
  organization_id: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
  pipeline_slug: 'shop',
  pipeline_id: '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a',
  build_number: 42,
  build_branch: 'main',
  build_commit: SHA,
  build_source: 'webhook',
  step_key: 'deploy',
  job_id: '0190b8a1-2c3d-4e5f-8a6b-7c8d9e0f1a2b',
  agent_id: '0190b8a0-1b2c-4d3e-9f4a-5b6c7d8e9f0a',
  runner_environment: 'self-hosted',
};

/** A Jenkins-like job (its oidc-provider plugin), for a custom mapping. */
export const CUSTOM_CLAIMS = {
  sub: 'https://jenkins.example.com/job/shop/',
  build_number: 17,
  job: 'shop',
  commit: SHA,
  branch: 'main',
};

export interface CiIssuer {
  url: string;
  kind: CiKind;
  /** The audience of its tokens unless a call asks for another: what the kernel must expect. */
  audience: string;
  /** A token of this issuer with its real claim shape, `over` merged in. */
  token(over?: Record<string, unknown>, options?: TokenOptions): Promise<string>;
  /** The claims its tokens carry before `over`. */
  claims: Record<string, unknown>;
  /** The fake-oidc issuer under it: its keys (`current`, `rotate`, `stranger`), `hits`, `down`. */
  fake: FakeIssuer;
  close(): Promise<void>;
}

const SHAPES: Record<CiKind, Record<string, unknown>> = {
  github: RUN_CLAIMS,
  gitlab: GITLAB_CLAIMS,
  circleci: CIRCLECI_CLAIMS,
  buildkite: BUILDKITE_CLAIMS,
  custom: CUSTOM_CLAIMS,
};

/** Each CI's default audience: CircleCI's is the org id; the others' are chosen by the job. */
const AUDIENCES: Record<CiKind, string> = {
  github: 'lease-gate',
  gitlab: 'lease-gate',
  circleci: CIRCLECI_ORG_ID,
  buildkite: 'lease-gate',
  custom: 'lease-gate',
};

/**
 * A fake issuer of `kind` on 127.0.0.1. `path`: the issuer URL's path (CircleCI's is
 * `/org/<org-id>` by default, as the real one; the others none).
 */
export async function startCiIssuer(
  kind: CiKind,
  options: { audience?: string; path?: string; now?: () => number } = {},
): Promise<CiIssuer> {
  const audience = options.audience ?? AUDIENCES[kind];
  const path = options.path ?? (kind === 'circleci' ? `/org/${CIRCLECI_ORG_ID}` : '');
  const fake = await startFakeIssuer({
    path,
    audience,
    claims: SHAPES[kind],
    ...(options.now ? { now: options.now } : {}),
  });
  const claims: Record<string, unknown> = { ...SHAPES[kind] };
  if (kind === 'gitlab') {
    // GitLab names its own host in the config URI.
    const host = new URL(fake.url).host;
    claims.ci_config_ref_uri = GITLAB_CLAIMS.ci_config_ref_uri.replace('gitlab.example.com', host);
  }
  return {
    url: fake.url,
    kind,
    audience,
    claims,
    fake,
    token: (over = {}, o = {}) =>
      fake.sign({
        ...o,
        claims: { ...claims, ...over, ...o.claims },
        audience: o.audience ?? audience,
      }),
    close: () => fake.close(),
  };
}
