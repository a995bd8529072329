import type { Deploy } from '../../plane/deploy.js';
import { parseRepository } from '../../plane/did.js';
import { claimText, gitlabProjectId, jobDidPrefix, type CiKind } from '../../plane/ci-job.js';
import type { IssuerSpec } from './issuer-config.js';
import { POLICY_CLAIMS } from './policy-claims.js';
import type { OidcClaims } from './oidc.js';
import { AuthRefusal } from './refusal.js';

/**
 * Each CI's claims, mapped to what the kernel needs of a job: who it is (its DID prefix,
 * ci-job.ts), which repository's lane it is in, which deploy fields its token vouches for,
 * the claims a policy rule may test, and the refusals a deploy gate's user expects of it.
 * No I/O. The table of field ← claim per CI is in docs/ci-issuers.md; keep them alike.
 */

export interface IssuerRef {
  name: string;
  kind: CiKind;
  url: string;
}

/** Who a verified token says its bearer is. */
export interface JobIdentity {
  issuer: IssuerRef;
  /** The repository (owner/repo) its lane and compare budget are keyed by; '' when none is known. */
  repository: string;
  /** GitHub: the run id; GitLab: the pipeline id; CircleCI: the workflow id; Buildkite: the build number. */
  runId: string;
  /** GitHub's run attempt; '' where the CI names no attempt. */
  attempt: string;
  /** Every DID this token may act as starts with this (it ends with a colon). */
  didPrefix: string;
  /** How messages name the job: "run 4242 (attempt 1) of acme/shop". */
  described: string;
}

const CIRCLE = 'oidc.circleci.com/';
const circle = (names: string[]) => names.map((n) => `${CIRCLE}${n}`);

/** The claims a policy rule of an issuer of each kind may test; custom: its configured list. */
export const CLAIMS_BY_KIND: Record<Exclude<CiKind, 'custom'>, readonly string[]> = {
  github: POLICY_CLAIMS,
  gitlab: [
    ...['sub', 'namespace_id', 'namespace_path', 'project_id', 'project_path', 'user_id'],
    ...['user_login', 'user_email', 'user_access_level', 'pipeline_id', 'pipeline_source'],
    ...['job_id', 'ref', 'ref_type', 'ref_path', 'ref_protected', 'environment'],
    ...['environment_protected', 'deployment_tier', 'deployment_action', 'runner_id'],
    ...['runner_environment', 'sha', 'ci_config_ref_uri', 'ci_config_sha', 'project_visibility'],
    ...['job_project_id', 'job_project_path', 'job_namespace_id', 'job_namespace_path'],
  ],
  circleci: [
    'sub',
    ...circle(['org-id', 'project-id', 'pipeline-id', 'pipeline-definition-id', 'workflow-id']),
    ...circle(['job-id', 'vcs-origin', 'vcs-ref', 'context-ids', 'ssh-rerun']),
  ],
  buildkite: [
    ...['sub', 'organization_slug', 'organization_id', 'pipeline_slug', 'pipeline_id'],
    ...['build_number', 'build_branch', 'build_tag', 'build_commit', 'build_source', 'step_key'],
    ...['job_id', 'agent_id', 'cluster_id', 'cluster_name', 'queue_id', 'queue_key'],
    'runner_environment',
  ],
};

export function policyClaimsOf(spec: Pick<IssuerSpec, 'kind' | 'claims'>): readonly string[] {
  return spec.kind === 'custom' ? ['sub', ...(spec.claims ?? [])] : CLAIMS_BY_KIND[spec.kind];
}

/** The kinds whose tokens say whether the ref is protected (`protectedRef` rules). */
export const PROTECTED_REF_KINDS: readonly CiKind[] = ['github', 'gitlab'];

const refused = (message: string) =>
  new AuthRefusal(message, { status: 401, reason: 'unauthorized' });

/** The repository a job's project maps to, or its own owner/repo-shaped name. */
function repositoryOf(spec: IssuerSpec, claims: OidcClaims): string {
  const text = (name: string) => claimText(claims, name);
  const mapped = (...keys: Array<string | undefined>) =>
    keys.map((k) => (k === undefined ? undefined : spec.repositories.get(k))).find(Boolean);
  const fits = (value: string | undefined) => (value && parseRepository(value) ? value : undefined);
  switch (spec.kind) {
    case 'github':
      return text('repository') ?? '';
    case 'gitlab':
      return (
        mapped(gitlabProjectId(claims), text('project_path')) ?? fits(text('project_path')) ?? ''
      );
    case 'circleci': {
      const origin = /^[^/]+\/([^/]+\/[^/]+?)(?:\.git)?$/.exec(text(`${CIRCLE}vcs-origin`) ?? '');
      return mapped(text(`${CIRCLE}project-id`)) ?? fits(origin?.[1]) ?? '';
    }
    case 'buildkite': {
      const slugs = `${text('organization_slug') ?? ''}/${text('pipeline_slug') ?? ''}`;
      return mapped(slugs) ?? fits(slugs) ?? '';
    }
    case 'custom': {
      const claim = spec.deploy?.repository;
      const value = claim ? text(claim) : undefined;
      return (value && mapped(value)) ?? fits(value) ?? '';
    }
  }
}

/** The job a verified token of `spec` names; 401 when its claims name none in the accepted forms. */
export function jobIdentity(spec: IssuerSpec, claims: OidcClaims): JobIdentity {
  const issuer = { name: spec.name, kind: spec.kind, url: spec.url };
  const text = (name: string) => claimText(claims, name) ?? '';
  if (spec.kind === 'buildkite') {
    const org = spec.organization ?? '';
    if (text('organization_slug') !== org && text('organization_id') !== org) {
      throw refused(
        `The OIDC token verified but is of the Buildkite organization ${JSON.stringify(text('organization_slug').slice(0, 100))}; issuer ${spec.name} accepts only ${org}'s.`,
      );
    }
  }
  const didPrefix = jobDidPrefix(spec.kind, claims, spec.didHost, spec.did);
  if (didPrefix === undefined) {
    throw refused(
      spec.kind === 'github'
        ? 'The OIDC token verified but names no GitHub Actions run (its repository, run_id and run_attempt claims), so the kernel cannot tell which DIDs it may act as.'
        : `The OIDC token of issuer ${spec.name} verified but names no ${spec.kind} job (${jobClaims(spec)}), so the kernel cannot tell which DIDs it may act as.`,
    );
  }
  const repository = repositoryOf(spec, claims);
  const of = repository || spec.name;
  const ids: Record<CiKind, [string, string, string]> = {
    github: [
      text('run_id'),
      text('run_attempt'),
      `run ${text('run_id')} (attempt ${text('run_attempt')}) of ${repository}`,
    ],
    gitlab: [
      text('pipeline_id'),
      '',
      `GitLab job ${text('job_id')} of pipeline ${text('pipeline_id')} of ${text('project_path')}`,
    ],
    circleci: [
      text(`${CIRCLE}workflow-id`),
      '',
      `CircleCI job ${text(`${CIRCLE}job-id`)} of ${of}`,
    ],
    buildkite: [
      text('build_number'),
      '',
      `Buildkite job ${text('job_id')} of build ${text('build_number')} of ${text('organization_slug')}/${text('pipeline_slug')}`,
    ],
    custom: ['', '', `a job of issuer ${spec.name} (${didPrefix})`],
  };
  const [runId, attempt, described] = ids[spec.kind];
  return { issuer, repository, runId, attempt, didPrefix, described };
}

const jobClaims = (spec: IssuerSpec): string =>
  ({
    github: 'repository, run_id, run_attempt',
    gitlab: 'project_id or job_project_id, pipeline_id, job_id',
    circleci: 'oidc.circleci.com/org-id, project-id, job-id',
    buildkite: 'organization_slug, pipeline_slug, build_number, job_id',
    custom: `the claims of its DID template ${spec.did ?? ''}`,
  })[spec.kind];

type Values = Record<keyof Deploy, Array<string | number | undefined>>;

/**
 * The deploy values a token vouches for, per field (the first recorded when none is sent);
 * a field left empty is taken as sent, i.e. believed (docs/ci-issuers.md says which).
 */
export function deployValues(spec: IssuerSpec, claims: OidcClaims, job: JobIdentity): Values {
  const text = (name: string) => claimText(claims, name);
  const whole = (name: string) => {
    const value = text(name);
    return value && /^[1-9]\d{0,12}$/.test(value) ? Number(value) : undefined;
  };
  const repository = [job.repository || undefined];
  const none: Values = {
    repository: [],
    workflow: [],
    ref: [],
    commit: [],
    runNumber: [],
    runAttempt: [],
    runUrl: [],
  };
  switch (spec.kind) {
    case 'github':
      return none; // deploy-claims.ts keeps GitHub's own mapping, unchanged.
    case 'gitlab': {
      const config = /\/\/(.+)@[^@]*$/.exec(text('ci_config_ref_uri') ?? '')?.[1];
      const project = text('project_path');
      const pipeline = text('pipeline_id');
      const refPath =
        text('ref_path') ??
        (text('ref')
          ? `refs/${text('ref_type') === 'tag' ? 'tags' : 'heads'}/${text('ref')}`
          : undefined);
      return {
        ...none,
        repository,
        workflow: [config],
        ref: [refPath],
        commit: [text('sha')],
        runNumber: [whole('pipeline_id')],
        runUrl: project && pipeline ? [`${spec.url}/${project}/-/pipelines/${pipeline}`] : [],
      };
    }
    case 'circleci':
      return {
        ...none,
        repository,
        workflow: [text(`${CIRCLE}pipeline-definition-id`)],
        ref: [text(`${CIRCLE}vcs-ref`)],
      };
    case 'buildkite': {
      const tag = text('build_tag');
      const branch = text('build_branch');
      const slugs = `${text('organization_slug') ?? ''}/${text('pipeline_slug') ?? ''}`;
      const build = whole('build_number');
      return {
        ...none,
        repository,
        workflow: [text('pipeline_slug')],
        ref: [tag ? `refs/tags/${tag}` : branch ? `refs/heads/${branch}` : undefined],
        commit: [text('build_commit')],
        runNumber: [build],
        runUrl: build ? [`https://buildkite.com/${slugs}/builds/${build}`] : [],
      };
    }
    case 'custom': {
      const out = { ...none, repository };
      for (const [field, claim] of Object.entries(spec.deploy ?? {}) as Array<
        [keyof Deploy, string]
      >) {
        if (field === 'repository') continue;
        const value = field === 'runNumber' || field === 'runAttempt' ? whole(claim) : text(claim);
        out[field] = [value];
      }
      return out;
    }
  }
}

/**
 * Refusals built into a kind, whatever the rules say (a rule may lift the fork one):
 * CircleCI tokens of an SSH rerun (a person at a shell holds the job's token, as PyPI
 * refuses them); GitLab merge-request pipelines of a fork's code (`job_project_id` not
 * `project_id`, or an MR pipeline whose token cannot tell). The claim named, or undefined.
 */
export function builtInRefusal(
  kind: CiKind,
  claims: OidcClaims,
  allowForks: boolean,
): { claim: string; why: string } | undefined {
  // CircleCI sends a boolean; "true" as text is refused alike, not taken for a normal run.
  if (kind === 'circleci' && /^true$/i.test(String(claims[`${CIRCLE}ssh-rerun`]))) {
    return {
      claim: `${CIRCLE}ssh-rerun`,
      why: "an SSH rerun: someone at a shell holds this job's token, so it is refused",
    };
  }
  if (kind === 'gitlab' && !allowForks) {
    const job = claimText(claims, 'job_project_id');
    const project = claimText(claims, 'project_id');
    if (job !== undefined && project !== undefined && job !== project) {
      return {
        claim: 'job_project_id',
        why: `a pipeline of project ${project}'s code (a fork) running in project ${job}: refused unless the rule says "allowForks": true`,
      };
    }
    if (job === undefined && claimText(claims, 'pipeline_source') === 'merge_request_event') {
      return {
        claim: 'pipeline_source',
        why: 'a merge-request pipeline whose token has no job_project_id, so it may be a fork\'s: refused unless the rule says "allowForks": true',
      };
    }
  }
  return undefined;
}
