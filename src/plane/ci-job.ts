import { didSegment, parseRepository } from './did.js';
import { isDid } from './schema.js';

/**
 * Which DIDs a CI job's OIDC token lets it act as, by the CI that issued it: part of the
 * wire contract, so the kernel (which verified the token) and the CLI (which reads its own
 * token only to name itself; the kernel checks) spell them alike. No I/O and no node:
 * imports. Each prefix names the narrowest unit the issuer's claims vouch for, and ends
 * with a colon, so a job may add its own segments (a host, a nonce) after it.
 *
 *   github     did:web:<host>:<owner>:<repo>:actions:runs:<run_id>:attempts:<run_attempt>:
 *   gitlab     did:web:<host>:gitlab:projects:<project id>:pipelines:<pipeline_id>:jobs:<job_id>:
 *   circleci   did:web:oidc.circleci.com:circleci:orgs:<org-id>:projects:<project-id>:jobs:<job-id>:
 *   buildkite  did:web:agent.buildkite.com:buildkite:<organization_slug>:<pipeline_slug>:builds:<build_number>:jobs:<job_id>:
 *   custom     the operator's template, `{claim}` replaced by the claim's value as one segment
 *
 * GitHub's tokens name no job, so a run attempt is the unit there; the other CIs name the
 * job. GitLab's project is its id, never its path: in a merge-request pipeline from a fork
 * `project_*` describes the fork, and a path can be renamed, so `job_project_id` (the project
 * the job runs in) is bound where the token has it.
 */

export const CI_KINDS = ['github', 'gitlab', 'circleci', 'buildkite', 'custom'] as const;
export type CiKind = (typeof CI_KINDS)[number];

/** A verified token's claims, or the CLI's own token's payload read unverified. */
export type JobClaims = Readonly<Record<string, unknown>>;

const CIRCLECI = 'oidc.circleci.com/';
/** Ids as the CIs issue them: decimal numbers, or UUIDs (CircleCI), each one segment. */
const NUMBER = /^[1-9]\d{0,19}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A slug of Buildkite's: lowercase letters, digits and hyphens. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;
/** A `{claim}` placeholder of a custom template: claim names as JWTs spell them. */
const PLACEHOLDER = /\{([A-Za-z0-9_./-]{1,100})\}/g;

/** A claim as text: strings as they are, whole numbers in decimal; anything else absent. */
export function claimText(claims: JobClaims, name: string): string | undefined {
  const value = claims[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

const matching = (claims: JobClaims, name: string, form: RegExp) => {
  const value = claimText(claims, name);
  return value !== undefined && form.test(value) ? value : undefined;
};

const prefixOf = (segments: readonly string[]) => `did:web:${segments.join(':')}:`;

/** The GitLab project the job runs in: `job_project_id` where the token has it. */
export function gitlabProjectId(claims: JobClaims): string | undefined {
  return matching(claims, 'job_project_id', NUMBER) ?? matching(claims, 'project_id', NUMBER);
}

/**
 * The DID prefix a job's token vouches for, or undefined when its claims do not name a
 * job of that CI in the accepted forms (the kernel then refuses the token 401).
 * `host`: the DID host (GitHub's `--oidc-did-host`, GitLab's instance host); ignored by
 * CircleCI and Buildkite, whose issuers are one host each. `template`: custom only.
 */
export function jobDidPrefix(
  kind: CiKind,
  claims: JobClaims,
  host: string,
  template?: string,
): string | undefined {
  const prefix = prefixFor(kind, claims, host, template);
  // The prefix plus one segment must still be a DID the wire accepts.
  return prefix !== undefined && isDid(`${prefix}x`) ? prefix : undefined;
}

function prefixFor(
  kind: CiKind,
  claims: JobClaims,
  host: string,
  template: string | undefined,
): string | undefined {
  switch (kind) {
    case 'github': {
      const repo = parseRepository(claimText(claims, 'repository') ?? '');
      const run = matching(claims, 'run_id', NUMBER);
      const attempt = matching(claims, 'run_attempt', /^[1-9]\d{0,5}$/);
      if (!repo || !run || !attempt) return undefined;
      const head = [didSegment(host), repo.owner, repo.repo];
      return prefixOf([...head, 'actions', 'runs', run, 'attempts', attempt]);
    }
    case 'gitlab': {
      const project = gitlabProjectId(claims);
      const pipeline = matching(claims, 'pipeline_id', NUMBER);
      const job = matching(claims, 'job_id', NUMBER);
      if (!project || !pipeline || !job) return undefined;
      const head = [didSegment(host), 'gitlab', 'projects', project];
      return prefixOf([...head, 'pipelines', pipeline, 'jobs', job]);
    }
    case 'circleci': {
      const org = matching(claims, `${CIRCLECI}org-id`, UUID);
      const project = matching(claims, `${CIRCLECI}project-id`, UUID);
      const job = matching(claims, `${CIRCLECI}job-id`, UUID);
      if (!org || !project || !job) return undefined;
      const head = ['oidc.circleci.com', 'circleci', 'orgs', org];
      return prefixOf([...head, 'projects', project, 'jobs', job]);
    }
    case 'buildkite': {
      const org = matching(claims, 'organization_slug', SLUG);
      const pipeline = matching(claims, 'pipeline_slug', SLUG);
      const build = matching(claims, 'build_number', NUMBER);
      const job = matching(claims, 'job_id', UUID);
      if (!org || !pipeline || !build || !job) return undefined;
      const head = ['agent.buildkite.com', 'buildkite', org, pipeline];
      return prefixOf([...head, 'builds', build, 'jobs', job]);
    }
    case 'custom':
      return template === undefined ? undefined : fromTemplate(template, claims);
  }
}

/**
 * A custom issuer's prefix: each `{claim}` replaced by the claim's value as one DID segment
 * (so a value can never add a colon); a missing or empty claim gives no prefix at all.
 */
function fromTemplate(template: string, claims: JobClaims): string | undefined {
  let missing = false;
  const prefix = template.replace(PLACEHOLDER, (_, name: string) => {
    const value = claimText(claims, name);
    if (!value) missing = true;
    return value ? didSegment(value) : '';
  });
  return missing ? undefined : prefix;
}

/** A custom template an operator wrote: checked at start, so a typo fails there, not per token. */
export function templateProblem(template: string): string | undefined {
  const names = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
  const sample = template.replace(PLACEHOLDER, 'x');
  if (!template.startsWith('did:web:') || !template.endsWith(':') || !isDid(`${sample}x`)) {
    return 'expected a DID prefix such as did:web:jenkins.example.com:{sub}: (did:web:, ending with a colon)';
  }
  if (names.length === 0) return 'expected at least one {claim} placeholder';
  return undefined;
}

/**
 * The CI whose token this is, by its issuer URL alone: what the CLI and `--oidc-issuer URL`
 * assume when nothing says otherwise. GitLab instances and custom issuers cannot be told by
 * their URL (they are named by `gitlab=URL`, or in an issuers file).
 */
export function kindOfIssuer(issuer: string): CiKind | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return undefined;
  }
  if (url.hostname === 'token.actions.githubusercontent.com') return 'github';
  if (url.hostname === 'oidc.circleci.com') return 'circleci';
  if (url.hostname === 'agent.buildkite.com') return 'buildkite';
  if (url.hostname === 'gitlab.com') return 'gitlab';
  return undefined;
}
