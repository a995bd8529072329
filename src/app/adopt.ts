import { errorMessage } from '../errors.js';
import { formatDuration } from '../gate/duration.js';
import { parseRepository } from '../plane/did.js';
import { untrusted } from '../lease/escape.js';
import type { PlaneClient } from '../plane/client.js';
import type { Lease } from '../plane/schema.js';
import { findRule, type AppConfig } from './config.js';
import { protectionRuleSchema, runIdFromCallback } from './events.js';
import { runDid } from './gate.js';
import type { RecoveredRequest } from './receiver.js';
import type { GitHubApp, Repo } from './github.js';

/**
 * Recovery's first pass: runs the previous process approved whose leases it kept for
 * their jobs to take up. A killed app (kill -9 after GitHub applied the approval, before
 * it heard so) left nobody renewing such a lease: it would lapse in one lease time and
 * the next run would be approved while this run's job has not started. So, before the
 * runs still waiting are queued again (those wait for the places a killed process left
 * to lapse), each run GitHub no longer shows waiting, not completed, whose DID the plane
 * shows holding the rule's resource is handed to `keep`: kept for a take-up grace from
 * now, as after an approval (the app cannot know when it approved; a job that took it up
 * already renews the same lease, which is harmless). Only the runs still waiting are
 * returned, for the queue.
 */

/** A run approved before the restart whose lease its DID holds now. */
export interface ApprovedRun {
  tag: string;
  did: string;
  resource: string;
  installation: number;
  repository: string;
  repo: Repo;
  runId: string;
  environment: string;
  lease: Lease;
}

export interface AdoptOptions {
  config: AppConfig;
  github: GitHubApp;
  plane: Pick<PlaneClient, 'status'>;
  log: (line: string) => void;
  signal: AbortSignal;
  /** Starts keeping an approved run's lease (it runs on; not awaited). */
  keep: (run: ApprovedRun) => void;
}

export async function adoptApproved(
  found: RecoveredRequest[],
  options: AdoptOptions,
): Promise<RecoveredRequest[]> {
  const left: RecoveredRequest[] = [];
  for (const request of found) {
    if (options.signal.aborted) return left;
    const approved = await approvedRun(request, options).catch((error: unknown) => {
      options.log(
        `recovery: delivery ${request.delivery.id}: could not tell whether its run was approved (${errorMessage(error)}); queued again`,
      );
      return 'waiting' as const;
    });
    if (approved === 'waiting') left.push(request);
    else if (approved) {
      options.log(
        `recovery: ${approved.tag}: approved before the restart, and its lease ${approved.lease.id} is still held by its DID: kept for its job to take up, at most ${formatDuration(options.config.takeUpGraceMs)} or until the run ends`,
      );
      options.keep(approved);
    }
  }
  return left;
}

/** `waiting`: queue it again; an ApprovedRun: keep its lease; undefined: nothing to do. */
async function approvedRun(
  request: RecoveredRequest,
  { config, github, plane, signal }: AdoptOptions,
): Promise<ApprovedRun | 'waiting' | undefined> {
  const parsed = protectionRuleSchema.safeParse(request.delivery.payload);
  // What cannot be read here is left to the gatekeeper, which says why it drops it.
  if (!parsed.success || parsed.data.action !== 'requested') return 'waiting';
  const event = parsed.data;
  const repository = event.repository.full_name;
  const runId = runIdFromCallback(event.deployment_callback_url, repository);
  const rule = findRule(config.rules, repository, event.environment);
  if (!runId || !rule) return 'waiting';
  const repo = parseRepository(repository)!;
  const installation = event.installation.id;
  const run = await github.getRun(installation, repo, runId);
  if (run.status === 'waiting') return 'waiting';
  if (run.status === 'completed') return undefined;
  const did = runDid(
    config,
    { repository, runId, deploymentId: event.deployment.id },
    rule,
    run.runAttempt,
  );
  const lease = await plane.status(rule.resource, { signal });
  if (lease?.holder !== did) return undefined;
  const environment = untrusted(event.environment, 255);
  return {
    tag: `run ${runId} of ${repository} (environment ${environment})`,
    did,
    resource: rule.resource,
    installation,
    repository,
    repo,
    runId,
    environment: event.environment,
    lease,
  };
}
