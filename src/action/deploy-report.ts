import { errorMessage } from '../errors.js';
import { untrusted } from '../lease/escape.js';
import type { Held } from '../lease/session.js';
import type { Deploy } from '../plane/deploy.js';
import { summarize, type ActionContext } from './context.js';
import type { GitHubSurfaces } from './github.js';
import { OUTPUTS, STATE } from './io.js';
import { commitUrl, compareWithLive, describeLive, type Comparison } from './outdated.js';
import type { ActionSettings } from './settings.js';

/** The summary rows that say what this run deploys (the commit as its GitHub link). */
export function deployRows(
  deploy: Deploy | undefined,
  env: NodeJS.ProcessEnv,
): Array<[string, string]> {
  if (!deploy) return [];
  const rows: Array<[string, string]> = [];
  if (deploy.commit) rows.push(['commit', commitUrl(deploy, env) ?? deploy.commit]);
  if (deploy.ref) rows.push(['ref', deploy.ref]);
  if (deploy.workflow) rows.push(['workflow', deploy.workflow]);
  if (deploy.runNumber !== undefined) {
    const attempt =
      deploy.runAttempt && deploy.runAttempt > 1 ? `, attempt ${deploy.runAttempt}` : '';
    rows.push(['run', `${deploy.runNumber}${attempt}${deploy.runUrl ? ` ${deploy.runUrl}` : ''}`]);
  }
  return rows;
}

/** A newer run of this lane took our place: a success that holds nothing. */
export async function reportSuperseded(
  ctx: ActionContext,
  settings: ActionSettings,
  result: { by: string; waitedMs: number },
  github: GitHubSurfaces,
  waited: string,
): Promise<void> {
  const by = untrusted(result.by, 2_048);
  ctx.setOutput(OUTPUTS.acquired, 'false');
  ctx.setOutput(OUTPUTS.supersededBy, by);
  ctx.saveState(STATE.outcome, 'none');
  ctx.notice(
    `A newer run of this workflow and ref is waiting for ${settings.resource}, so this run steps aside (queue: newest): ${by}. This job holds nothing; the step succeeds with acquired=false.`,
    `Superseded on ${settings.resource}`,
  );
  await github.status('success', `Superseded by a newer run: ${by}`);
  await summarize(ctx, `lease-gate: ${settings.resource} superseded`, [
    ['resource', settings.resource],
    ...deployRows(settings.deploy, ctx.env),
    ['superseded by', by],
    ['waited', waited],
    ['outcome', 'superseded (step succeeded, nothing deployed)'],
  ]);
}

/**
 * Never an older commit. Returns true to go on deploying; false when the
 * lease was given back (skip) or the step failed (fail) because this run's
 * commit is older than the one last granted here.
 */
export async function checkDeployOrder(
  ctx: ActionContext,
  settings: ActionSettings,
  held: Held,
  previous: Deploy | undefined,
  github: GitHubSurfaces,
): Promise<boolean> {
  let comparison: Comparison;
  try {
    comparison = await compareWithLive({
      ours: settings.deploy,
      previous,
      token: settings.githubToken,
      env: ctx.env,
    });
  } catch (error) {
    comparison = { kind: 'unknown', live: previous, why: errorMessage(error) };
  }
  const live = comparison.kind === 'first' ? undefined : comparison.live;
  if (live?.commit) ctx.setOutput(OUTPUTS.liveCommit, live.commit);
  ctx.setOutput(OUTPUTS.outdated, comparison.kind === 'behind' ? 'true' : 'false');
  switch (comparison.kind) {
    case 'first':
      return true;
    case 'ahead':
    case 'identical':
      ctx.info(
        `Deploy order: this run's commit is ${comparison.kind === 'ahead' ? 'newer than' : 'the same as'} the last one granted here, ${describeLive(comparison.live)}.`,
      );
      return true;
    case 'diverged':
      ctx.notice(
        `This run's commit and the last one granted here (${describeLive(comparison.live)}) have diverged (a force-push, or another branch): neither is an ancestor of the other, so it deploys.`,
        'Deploy order: diverged',
      );
      return true;
    case 'unknown':
      ctx.warning(
        `Could not tell whether this run's commit is older than the last one granted here (${comparison.why}); it deploys.`,
      );
      return true;
    case 'behind':
      break;
  }
  const liveText = describeLive(comparison.live);
  if (settings.onOutdated === 'deploy') {
    ctx.warning(
      `This run's commit is older than the last one granted here, ${liveText}: deploying it anyway (on-outdated: deploy), a rollback.`,
      'Deploying an older commit',
    );
    return true;
  }
  // Given back at once, marked outdated, so later runs compare with the live commit, not ours.
  const released = await held.release({ outdated: true });
  ctx.saveState(STATE.leaseId, '');
  ctx.saveState(STATE.outcome, 'none');
  ctx.setOutput(OUTPUTS.acquired, 'false');
  const gaveBack =
    released.kind === 'released' ? 'given back' : 'not confirmed given back (it lapses on its own)';
  const message = `This run's commit ${settings.deploy?.commit ?? ''} is older than the one last granted on ${settings.resource}, ${liveText}: not deploying it; the lease was ${gaveBack}.`;
  const fail = settings.onOutdated === 'fail';
  if (fail) ctx.setFailed(`${message} (on-outdated: fail; use 'deploy' for a deliberate rollback)`);
  else
    ctx.notice(
      `${message} The step succeeds with acquired=false (on-outdated: skip).`,
      'Outdated: skipped',
    );
  await github.status(
    fail ? 'failure' : 'success',
    `Outdated: ${live?.commit?.slice(0, 12) ?? 'a newer commit'} is live`,
  );
  await summarize(ctx, `lease-gate: ${settings.resource} outdated`, [
    ['resource', settings.resource],
    ...deployRows(settings.deploy, ctx.env),
    ['live commit', (live && commitUrl(live, ctx.env)) ?? live?.commit ?? 'unknown'],
    ['outcome', fail ? 'outdated (step failed)' : 'outdated (skipped, lease given back)'],
  ]);
  return false;
}
