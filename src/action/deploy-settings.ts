import { commitSha } from './github.js';
import { SettingsError } from '../lease/errors.js';
import { cleanDeploy, deploySchema, type Deploy, type QueueMode } from '../plane/deploy.js';
import type { ActionContext } from './context.js';
import { INPUTS } from './io.js';

/** What the gate does when its commit is older than the one last granted here. */
export const ON_OUTDATED = ['skip', 'fail', 'deploy'] as const;
export type OnOutdated = (typeof ON_OUTDATED)[number];

export interface DeployOrderSettings {
  /** What this run deploys, from GITHUB_* (fields that are missing or malformed are left out). */
  deploy: Deploy | undefined;
  onOutdated: OnOutdated;
  queue: QueueMode;
}

/** The inputs `on-outdated` and `queue` (empty: their defaults) and the run's deploy identity. */
export function readDeployOrder(ctx: Pick<ActionContext, 'getInput' | 'env'>): DeployOrderSettings {
  const onOutdated = choice(ctx, INPUTS.onOutdated, ON_OUTDATED, 'skip');
  const queue = choice(ctx, INPUTS.queue, ['fifo', 'newest'] as const, 'fifo');
  return { deploy: deployFromEnv(ctx.env), onOutdated, queue };
}

function choice<T extends string>(
  ctx: Pick<ActionContext, 'getInput'>,
  name: (typeof INPUTS)[keyof typeof INPUTS],
  allowed: readonly T[],
  fallback: T,
): T {
  const value = ctx.getInput(name).trim();
  if (!value) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const shown = value.slice(0, 80).replace(/[\r\n]/g, ' ');
  throw new SettingsError(
    `Invalid input '${name}': '${shown}'. Expected ${allowed.map((a) => `'${a}'`).join(', ')}.`,
  );
}

/**
 * The deploy's identity from the runner's environment. The workflow is its
 * file (from GITHUB_WORKFLOW_REF, `owner/repo/.github/workflows/x.yml@ref`),
 * which two workflows cannot share, or else its name. The run URL names the
 * attempt, so a rerun's link is its own.
 */
export function deployFromEnv(env: NodeJS.ProcessEnv): Deploy | undefined {
  const repository = env.GITHUB_REPOSITORY;
  const workflowRef = env.GITHUB_WORKFLOW_REF ?? '';
  const prefix = repository ? `${repository}/` : '';
  const at = workflowRef.lastIndexOf('@');
  const workflowFile =
    prefix && workflowRef.startsWith(prefix) && at > prefix.length
      ? workflowRef.slice(prefix.length, at)
      : undefined;
  const server = (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  const runId = /^\d{1,20}$/.test(env.GITHUB_RUN_ID ?? '') ? env.GITHUB_RUN_ID : undefined;
  const attempt = /^\d{1,7}$/.test(env.GITHUB_RUN_ATTEMPT ?? '')
    ? env.GITHUB_RUN_ATTEMPT
    : undefined;
  const candidate: Record<string, unknown> = {
    repository,
    workflow: workflowFile ?? env.GITHUB_WORKFLOW,
    ref: env.GITHUB_REF,
    commit: commitSha(env),
    runNumber: numberOf(env.GITHUB_RUN_NUMBER),
    runAttempt: numberOf(attempt),
    runUrl:
      repository && runId
        ? `${server}/${repository}/actions/runs/${runId}${attempt ? `/attempts/${attempt}` : ''}`
        : undefined,
  };
  return keepValid(candidate);
}

const numberOf = (value: string | undefined) =>
  value && /^\d{1,13}$/.test(value) ? Number(value) : undefined;

/** Each field on its own: one the kernel would refuse is left out rather than failing the step. */
export function keepValid(candidate: Record<string, unknown>): Deploy | undefined {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(candidate)) {
    if (value === undefined) continue;
    if (deploySchema.safeParse({ [key]: value }).success) kept[key] = value;
  }
  return cleanDeploy(deploySchema.parse(kept));
}
