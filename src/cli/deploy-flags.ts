import { untrusted } from '../lease/escape.js';
import {
  DEPLOY_FORMS,
  QUEUE_MODES,
  cleanDeploy,
  deployEntries,
  deploySchema,
  type Deploy,
  type QueueMode,
} from '../plane/deploy.js';
import type { JobCi } from '../lease/ci-tokens.js';
import { jobDeploy } from './ci-auth.js';
import { UsageError } from './options.js';
import type { DEPLOY_FLAGS } from './flags/plane.js';

/**
 * The deploy's identity as flags, for CI systems that are not GitHub Actions
 * (the action reads it from GITHUB_*): sent with `run` and `acquire` lease
 * requests as the extension fields of plane/deploy.ts, checked here with the
 * kernel's own schema so a bad value is a usage error naming the flag, not a
 * 400 from the plane. A plane that does not know them ignores them.
 */

type DeployFlags = Partial<Record<keyof typeof DEPLOY_FLAGS, string | undefined>>;

const FLAG_OF: Record<keyof Deploy, keyof typeof DEPLOY_FLAGS> = {
  repository: 'repository',
  workflow: 'workflow',
  ref: 'ref',
  commit: 'commit',
  runNumber: 'run-number',
  runAttempt: 'run-attempt',
  runUrl: 'run-url',
};

const shown = (value: string) => untrusted(value, 80);

/**
 * The deploy a holding command sends: its flags', and on a job's own OIDC token (`ci`) the
 * kernel's to complete from the token's claims (ci-auth.ts jobDeploy).
 */
export function deployFor(
  values: DeployFlags,
  settings: { ci?: JobCi | undefined },
  env: NodeJS.ProcessEnv,
): { deploy?: Deploy; queue?: QueueMode } {
  const { deploy, queue } = deployFromFlags(values, settings.ci !== undefined);
  if (!settings.ci) return { ...(deploy ? { deploy } : {}), ...(queue ? { queue } : {}) };
  return { deploy: jobDeploy(settings.ci, deploy, env), ...(queue ? { queue } : {}) };
}

/**
 * The flags → the lease request's extension fields; throws a UsageError naming the flag.
 * `fromToken`: the kernel fills the lane (repository, workflow, ref, run) from the job's token.
 */
export function deployFromFlags(
  values: DeployFlags,
  fromToken = false,
): { deploy?: Deploy; queue?: QueueMode } {
  const candidate: Record<string, string | number> = {};
  for (const [key, flag] of Object.entries(FLAG_OF) as Array<[keyof Deploy, string]>) {
    const raw = values[flag as keyof DeployFlags];
    if (raw === undefined) continue;
    const value = parseField(key, flag, raw);
    if (!deploySchema.safeParse({ [key]: value }).success) {
      throw new UsageError(`Invalid --${flag} '${shown(raw)}'. Expected ${DEPLOY_FORMS[key]}.`);
    }
    candidate[key] = value;
  }
  const deploy = cleanDeploy(deploySchema.parse(candidate));
  const queue = values.queue;
  if (queue === undefined) return deploy ? { deploy } : {};
  if (!(QUEUE_MODES as readonly string[]).includes(queue)) {
    throw new UsageError(`Invalid --queue '${shown(queue)}'. Expected 'fifo' or 'newest'.`);
  }
  if (queue === 'newest' && !fromToken) {
    const missing = (['repository', 'workflow', 'ref', 'runNumber'] as const)
      .filter((key) => deploy?.[key] === undefined)
      .map((key) => `--${FLAG_OF[key]}`);
    if (missing.length) {
      throw new UsageError(
        `--queue newest needs ${missing.join(', ')}: a run is superseded only by a newer run (a higher --run-number) of the same repository, workflow and ref.`,
      );
    }
  }
  return { ...(deploy ? { deploy } : {}), queue: queue as QueueMode };
}

function parseField(key: keyof Deploy, flag: string, raw: string): string | number {
  if (key === 'runNumber' || key === 'runAttempt') {
    if (!/^\d{1,13}$/.test(raw)) {
      throw new UsageError(`Invalid --${flag} '${shown(raw)}'. Expected ${DEPLOY_FORMS[key]}.`);
    }
    return Number(raw);
  }
  // Git prints commits in lowercase; one pasted from elsewhere may not be.
  return key === 'commit' ? raw.toLowerCase() : raw;
}

/** "commit abc… of acme/shop on refs/heads/main, run 12 attempt 1: https://…", escaped for a terminal. */
export function describeDeploy(deploy: Deploy): string {
  const fields = new Map(deployEntries(deploy));
  const parts: string[] = [];
  const commit = fields.get('commit');
  if (commit !== undefined) parts.push(`commit ${commit}`);
  const repository = fields.get('repository');
  if (repository !== undefined) parts.push(`${parts.length ? 'of ' : ''}${repository}`);
  const workflow = fields.get('workflow');
  if (workflow !== undefined) parts.push(`workflow ${untrusted(String(workflow), 256)}`);
  const ref = fields.get('ref');
  if (ref !== undefined) parts.push(`on ${ref}`);
  const run = fields.get('runNumber');
  const attempt = fields.get('runAttempt');
  if (run !== undefined)
    parts.push(`run ${run}${attempt !== undefined ? ` attempt ${attempt}` : ''}`);
  else if (attempt !== undefined) parts.push(`attempt ${attempt}`);
  const url = fields.get('runUrl');
  return `${untrusted(parts.join(' '), 600)}${url !== undefined ? `: ${untrusted(String(url), 2048)}` : ''}`;
}
