import * as z from 'zod';
import { parseRepository } from '../lease/did.js';

/**
 * The parts of GitHub's webhook payloads the app uses, checked once here: a
 * payload is untrusted even with a good signature (a bug, a changed shape).
 * Unknown fields are ignored.
 */

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const repository = z.object({
  full_name: z.string().refine((v) => parseRepository(v) !== undefined, 'expected owner/repo'),
});

export const protectionRuleSchema = z.object({
  action: z.string().max(64),
  environment: z.string().min(1).max(255),
  event: z.string().max(64).optional(),
  deployment_callback_url: z.string().max(2_000),
  deployment: z.object({ id }),
  repository,
  installation: z.object({ id }),
});
export type ProtectionRuleEvent = z.infer<typeof protectionRuleSchema>;

export const workflowRunSchema = z.object({
  action: z.string().max(64),
  workflow_run: z.object({
    id,
    run_attempt: z.number().int().positive().optional(),
    status: z.string().max(40),
  }),
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
