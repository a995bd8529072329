import { DEPLOY_FIELDS, deploySchema, type Deploy } from '../../plane/deploy.js';
import type { RunIdentity } from './identity.js';
import type { IssuerSpec } from './issuer-config.js';
import { deployValues } from './mappings.js';
import type { OidcClaims } from './oidc.js';
import { AuthRefusal } from './refusal.js';

/**
 * What a run's deploy is, by its OIDC token: the kernel supersedes waiters and
 * answers `previous` by these fields (deploy-order.ts), so on an OIDC kernel
 * none is taken as sent. Each field comes from the token's claims; a field the
 * request sends must be one the claims give, or the lease is refused
 * `403 not_your_deploy` before anything changes. A field the claims do not give
 * (an issuer other than GitHub's, a claim missing) is left out.
 *
 * The action sends what the runner's environment says (action/deploy-settings.ts),
 * and GitHub builds the same token claims from the same run:
 *   repository ← `repository`          ref        ← `ref`
 *   workflow   ← the file in `workflow_ref` (`owner/repo/<file>@<ref>`), never the
 *                `workflow` claim: that is the file's own `name:`, which any workflow
 *                of the repository may set to another's path
 *   commit     ← `sha`                  runNumber  ← `run_number`
 *   runAttempt ← `run_attempt`          runUrl     ← https://<DID host>/<repo>/actions/runs/<id>/attempts/<n>
 *
 * One exception: on `pull_request*` events the gate names the pull request's head
 * commit, which no claim carries (`sha` is the merge commit, or the base for
 * `pull_request_target`), so there the commit is taken as sent: a run can name any
 * commit only in its own repository's lane, on resources the policy lets it lease.
 * Not on a resource of the promotion order (`--promote`): there a hold marks its commit
 * as having completed a step, so the commit must be the one the token vouches for, its
 * `sha`, or the lease is refused `403 not_your_deploy`.
 *
 * Other CIs' tokens (mappings.ts `deployValues`, docs/ci-issuers.md): each field their
 * claims give is held to them as GitHub's are; a field they do not give (CircleCI's commit,
 * GitLab's attempt) is taken as sent, believed; a believed commit is refused on a resource
 * of the promotion order, where it would mark a step as completed, and a believed repository
 * is refused everywhere (it would put the job in another repository's lane).
 */

type Field = keyof Deploy;

/** The values the claims allow for each field, the first being the one recorded when none is sent. */
function vouched(claims: OidcClaims, run: RunIdentity, issuer: IssuerSpec) {
  const out = {} as Record<Field, Array<string | number>>;
  const values =
    issuer.kind === 'github'
      ? github(claims, run, issuer.didHost)
      : deployValues(issuer, claims, run);
  for (const [field, list] of Object.entries(values) as Array<[Field, typeof values.ref]>) {
    // Only what the deploy schema accepts, so what is recorded is what a request could have said.
    out[field] = list.filter(
      (v): v is string | number =>
        v !== undefined && deploySchema.safeParse({ [field]: v }).success,
    );
  }
  return out;
}

/** GitHub's mapping (the comment above). */
function github(claims: OidcClaims, run: RunIdentity, didHost: string) {
  const text = (name: string) => (typeof claims[name] === 'string' ? claims[name] : undefined);
  const whole = (name: string) => {
    const value = text(name);
    return value && /^[1-9]\d{0,12}$/.test(value) ? Number(value) : undefined;
  };
  const prefix = `${run.repository}/`;
  const workflowRef = text('workflow_ref') ?? '';
  const at = workflowRef.lastIndexOf('@');
  const workflowFile =
    workflowRef.startsWith(prefix) && at > prefix.length
      ? workflowRef.slice(prefix.length, at)
      : undefined;
  const path = [run.repository, 'actions', 'runs', run.runId, 'attempts', run.attempt].join('/');
  const values: Record<Field, Array<string | number | undefined>> = {
    repository: [run.repository],
    workflow: [workflowFile],
    ref: [text('ref')],
    commit: [text('sha')],
    runNumber: [whole('run_number')],
    runAttempt: [Number(run.attempt)],
    // The attempt's URL, as the action builds it; the run's own (no attempt) names the same run.
    runUrl: [
      `https://${didHost}/${path}`,
      `https://${didHost}/${path.replace(/\/attempts\/\d+$/, '')}`,
    ],
  };
  return values;
}

const pullRequest = (claims: OidcClaims): boolean =>
  typeof claims.event_name === 'string' && claims.event_name.startsWith('pull_request');

/** The fields a token's claims cannot vouch for on this event, taken as sent (see above). */
const takenAsSent = (claims: OidcClaims, vouched: boolean): ReadonlySet<Field> =>
  pullRequest(claims) && !vouched ? new Set<Field>(['commit']) : new Set<Field>();

/**
 * The deploy to record for a lease asked with an OIDC token: `sent` checked field by
 * field against the claims and completed from them. Undefined when none was sent (the
 * run asked for no deploy order). Throws `403 not_your_deploy` naming the first field
 * that disagrees. `mustVouch`: a resource of the promotion order (no field taken as sent).
 */
export function deployOfRun(
  sent: Deploy | undefined,
  claims: OidcClaims,
  run: RunIdentity,
  issuer: IssuerSpec,
  mustVouch = false,
): Deploy | undefined {
  if (!sent) return undefined;
  const allowed = vouched(claims, run, issuer);
  if (mustVouch && sent.commit !== undefined && allowed.commit.length === 0) {
    throw new AuthRefusal(
      `This token is ${run.described}: its claims name no commit (${issuer.kind} tokens carry none), so deploy.commit ${shown(sent.commit)} would be believed, not vouched for; on a resource of the promotion order a hold marks its commit as having completed a step, so the commit must come from the token.`,
      { status: 403, reason: 'not_your_deploy' },
    );
  }
  // A repository names the lane and the promotion order a hold counts in: believed, any job
  // could join another repository's (a commit of its own marking a step done there).
  if (issuer.kind !== 'github' && sent.repository !== undefined && !allowed.repository.length) {
    throw new AuthRefusal(
      `This token is ${run.described}: its claims name no repository (owner/repo), so deploy.repository ${shown(sent.repository)} would be believed, and would let it into that repository's deploy order and promotion order. Map its project to the repository in issuer ${issuer.name}'s "repositories" (docs/ci-issuers.md), or send no deploy.repository.`,
      { status: 403, reason: 'not_your_deploy' },
    );
  }
  // Other CIs' tokens lack some fields (CircleCI's commit): those are believed, as sent.
  const asSent =
    issuer.kind === 'github'
      ? takenAsSent(claims, mustVouch)
      : new Set(DEPLOY_FIELDS.filter((field) => allowed[field].length === 0));
  const out: Record<string, string | number> = {};
  for (const field of DEPLOY_FIELDS) {
    const value = sent[field];
    if (asSent.has(field)) {
      if (value !== undefined) out[field] = value;
      continue;
    }
    const values = allowed[field];
    if (value !== undefined && values.length > 0 && !values.includes(value)) {
      throw new AuthRefusal(
        `This token is ${run.described}: its deploy.${field} is ${values.map(shown).join(' or ')}, not ${shown(value)}. On this kernel a run's deploy fields come from its OIDC token${field === 'commit' && pullRequest(claims) ? ", a pull request run's commit too on a resource of the promotion order (a hold there marks its commit as having completed a step)" : ''}.`,
        { status: 403, reason: 'not_your_deploy' },
      );
    }
    const recorded = value !== undefined && values.length > 0 ? value : values[0];
    if (recorded !== undefined) out[field] = recorded;
  }
  return out;
}

/** A value for a message: validated by the deploy schema already (one line, bounded); quoted. */
const shown = (value: string | number) =>
  typeof value === 'number' ? String(value) : JSON.stringify(value.slice(0, 300));
