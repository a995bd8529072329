import * as z from 'zod/mini';
import '../zod-en.js';
import { parseRepository } from '../plane/did.js';

/**
 * The parts of GitHub's webhook payloads the app uses, checked once here: a
 * payload is untrusted even with a good signature (a bug, a changed shape).
 * Unknown fields are ignored.
 */

const id = z.number().check(z.int(), z.positive(), z.lte(Number.MAX_SAFE_INTEGER));
const repository = z.object({
  full_name: z
    .string()
    .check(z.refine((v) => parseRepository(v) !== undefined, 'expected owner/repo')),
});

export const protectionRuleSchema = z.object({
  action: z.string().check(z.maxLength(64)),
  environment: z.string().check(z.minLength(1), z.maxLength(255)),
  event: z.optional(z.string().check(z.maxLength(64))),
  deployment_callback_url: z.string().check(z.maxLength(2_000)),
  deployment: z.object({ id }),
  repository,
  installation: z.object({ id }),
});
export type ProtectionRuleEvent = z.infer<typeof protectionRuleSchema>;

/** A workflow run, as in a `workflow_run` event and in GitHub's REST answer for one run. */
export const runSchema = z.object({
  id,
  run_attempt: z.optional(z.number().check(z.int(), z.positive())),
  status: z.string().check(z.maxLength(40)),
});

/** `GET …/environments/{name}`: only whether it requires reviewers matters here. */
export const environmentSchema = z.object({
  protection_rules: z.optional(
    z.array(z.object({ type: z.string().check(z.maxLength(64)) })).check(z.maxLength(100)),
  ),
});

/** `GET …/actions/runs/{run}/approvals`: each review, its state and the environments it covers. */
export const approvalsSchema = z
  .array(
    z.object({
      state: z.string().check(z.maxLength(40)),
      environments: z
        .array(z.object({ name: z.optional(z.string().check(z.maxLength(255))) }))
        .check(z.maxLength(100)),
    }),
  )
  .check(z.maxLength(1_000));

/** A `deployment_review` delivery: reviewers approved or rejected a run's environments. */
export const deploymentReviewSchema = z.object({
  action: z.string().check(z.maxLength(64)),
  workflow_run: z.object({ id }),
  repository,
});

export const workflowRunSchema = z.object({
  action: z.string().check(z.maxLength(64)),
  workflow_run: runSchema,
  repository,
});

/**
 * The run id from `deployment_callback_url`, when that URL names this repository's
 * run: `…/repos/{owner}/{repo}/actions/runs/{run_id}/deployment_protection_rule`.
 * The URL itself is never called: the app builds the route from its own API origin,
 * so a payload cannot send the installation token elsewhere.
 */
export function runIdFromCallback(url: string, fullName: string): string | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const match =
    /\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/([1-9]\d{0,19})\/deployment_protection_rule$/.exec(
      path,
    );
  if (!match) return undefined;
  const [, owner = '', repo = '', runId] = match;
  return `${owner}/${repo}`.toLowerCase() === fullName.toLowerCase() ? runId : undefined;
}
