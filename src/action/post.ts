import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatDuration } from '../gate/duration.js';
import { jobTempDir, stopDryRunKernel, stopKeeper } from '../lease/background.js';
import { describeHolder, shortHolder } from '../lease/did.js';
import { errorMessage } from '../errors.js';
import type { KeeperRecord } from '../lease/keeper-status.js';
import { openSession, type ReleaseOutcome } from '../lease/session.js';
import { describeLoss, formatEpoch } from '../lease/texts.js';
import { fetchLedger } from '../ledger/remote.js';
import { isDid } from '../plane/schema.js';
import { parsePlaneUrl } from '../plane/url.js';
import { summarize, type ActionContext } from './context.js';
import { coreContext } from './core-context.js';
import { deployRows } from './deploy-report.js';
import { deployFromEnv } from './deploy-settings.js';
import { GitHubSurfaces } from './github.js';
import { INPUTS } from './io.js';
import { readSavedState } from './saved-state.js';
import { oidcBearer, readAuth, readKey, readStatusContext } from './settings.js';

/** The post step: stop the keeper, give back what main may have been granted. It never fails the job. */
export async function run(ctx: ActionContext = coreContext()): Promise<void> {
  try {
    const key = readKey(ctx);
    if (key) ctx.setSecret(key);
    const auth = readAuth(ctx);
    // A dry run's own kernel takes no credential.
    const oidc = auth.mode === 'oidc' && !readSavedState(ctx).dryRun;
    const bearer = oidc ? oidcBearer(ctx, auth.audience) : undefined;
    const token = ctx.getInput(INPUTS.githubToken);
    if (token) ctx.setSecret(token);
    const statusContext = readStatusContext(ctx, readSavedState(ctx).resource ?? '');
    const github = new GitHubSurfaces(token, statusContext, ctx.env, (m) => ctx.warning(m));
    await cleanup(ctx, key, github, bearer);
  } catch (error) {
    ctx.warning(`lease-gate post step: ${errorMessage(error)}`);
  } finally {
    await exportDryRunLedger(ctx);
    await stopKernel(ctx);
  }
}

async function cleanup(
  ctx: ActionContext,
  key: string,
  github: GitHubSurfaces,
  bearer?: () => Promise<string>,
): Promise<void> {
  const state = readSavedState(ctx);
  const { resource } = state;
  const actorDid = state.actorDid ?? '';
  const apiUrl = parsePlaneUrl(state.apiUrl ?? '');
  const keeper = await readKeeper(ctx);
  if (!resource || !isDid(actorDid) || !apiUrl.ok) {
    ctx.info('This job asked for no lease: nothing to release.');
    return;
  }
  const grantedId = state.leaseId;
  const session = openSession({
    apiUrl: apiUrl.url,
    key,
    bearer,
    resource,
    actorDid,
    env: ctx.env,
  });
  try {
    if (!grantedId && state.outcome === 'none') {
      ctx.info(`This job was granted no lease on ${resource}: nothing to release.`);
      return;
    }
    if (!grantedId) {
      // Main may have been granted a lease it never recorded (killed, or an answer it refused).
      const outcome = await session.releaseOwn();
      ctx.info(
        outcome.kind === 'released'
          ? `Main recorded no lease, but the plane held one for this job's DID: released ${outcome.ids.join(', ')} (a release by resource and own DID can only give back this job's own lease).`
          : `This job holds no lease on ${resource}: nothing to release.`,
      );
      return;
    }
    await giveBack(ctx, session.releaseOwn, { resource, actorDid, grantedId, keeper }, github);
  } finally {
    await session.close();
  }
}

async function giveBack(
  ctx: ActionContext,
  releaseOwn: () => Promise<ReleaseOutcome>,
  job: { resource: string; actorDid: string; grantedId: string; keeper: KeeperRecord | undefined },
  github: GitHubSurfaces,
): Promise<void> {
  const { resource, keeper, grantedId } = job;
  const leaseId = grantedId;
  const state = readSavedState(ctx);
  const expiresAtMs = keeper?.expiresAtMs ?? state.expiresAtMs ?? NaN;
  const fence = state.fence;
  const heldFor = formatDuration(Math.max(0, Date.now() - (state.grantedAtMs || Date.now())));
  const rows: Array<[string, string]> = [
    ['resource', resource],
    ['holder', describeHolder(job.actorDid)],
    ['lease id', leaseId],
    ...deployRows(deployFromEnv(ctx.env), ctx.env),
    ...(fence ? ([['fence', fence]] as Array<[string, string]>) : []),
    ['waited', formatDuration(state.waitedMs ?? 0)],
    ['held for', heldFor],
    ['expires', formatEpoch(expiresAtMs)],
  ];
  if (state.dryRun) rows.push(['mode', 'dry run on a local kernel']);
  if (keeper) rows.push(['renewals', describeKeeper(keeper)]);
  // The keeper paced by a guess (no lease time on the plane's clock): said once, here.
  if (keeper?.note) ctx.warning(`The keeper's pace: ${keeper.note}`);

  if (keeper?.lost) {
    const loss = describeLoss(resource, keeper.lost);
    ctx.error(`${loss} This job was not exclusive after that moment.`, `Lost ${resource}`);
    rows.push(['released', `lost at ${formatEpoch(keeper.lost.endedAtMs ?? keeper.lost.atMs)}`]);
    // No lease of ours is left, but after a revoke the next holder waits for this give-back
    // (or the kernel's lock-delay): the job's steps are over now.
    await releaseOwn();
    const to = keeper.lost.holder ? shortHolder(keeper.lost.holder) : keeper.lost.reason;
    await github.status(
      'failure',
      `Lost at ${new Date(keeper.lost.atMs).toISOString().slice(11, 19)}Z: ${to}`,
    );
    await summarize(ctx, `lease-gate: ${resource} was lost`, rows);
    return;
  }
  if (keeper?.ended && keeper.ended.why !== 'stopped') {
    ctx.warning(
      `The keeper stopped early (${keeper.ended.why})${keeper.lastError ? `: ${keeper.lastError}` : ''}.`,
    );
  }
  // Release by (resource, own DID): it can only give back this job's own lease.
  const outcome = await releaseOwn();
  let text: string;
  if (outcome.kind === 'released' && outcome.ids.includes(leaseId)) {
    ctx.info(`Released ${resource} (lease ${leaseId}).`);
    text = 'released';
  } else if (outcome.kind === 'failed') {
    ctx.warning(
      `Could not release ${resource} (lease ${leaseId}): ${outcome.message} The lease lapses on its own by ${formatEpoch(expiresAtMs)}.`,
    );
    text = 'release failed; it lapses on its own';
  } else {
    const named = outcome.ids.join(', ') || 'none';
    ctx.warning(
      `Released ${resource}, but the plane's answer does not name lease ${leaseId} (it named ${named}): the lease may have lapsed or been taken away before the post step.`,
    );
    text = `not confirmed: the plane released ${named}`;
  }
  rows.push(['released', text]);
  await github.status(
    'success',
    `${text === 'released' ? 'Released' : 'Done'} after holding ${heldFor} (lease ${leaseId})`,
  );
  await summarize(ctx, `lease-gate: ${resource} given back`, rows);
}

async function readKeeper(ctx: ActionContext): Promise<KeeperRecord | undefined> {
  const { keeperStatus: file, keeperPid } = readSavedState(ctx);
  if (!file) return undefined;
  const pid = keeperPid || undefined;
  const status = await stopKeeper(pid, file);
  if (!status)
    ctx.warning(
      'The keeper left no status (it may have been stopped before it started): renewals are unknown.',
    );
  return status;
}

function describeKeeper(status: KeeperRecord): string {
  const last = status.lastRenewedAtMs
    ? `, last at ${new Date(status.lastRenewedAtMs).toISOString()}`
    : '';
  const failures = status.failures ? `, ${status.failures} failed attempt(s)` : '';
  return `${status.renewals}${last}${failures}`;
}

/** A dry run's audit trail: the kernel's ledger bundle and public key, kept under RUNNER_TEMP. */
async function exportDryRunLedger(ctx: ActionContext): Promise<void> {
  const { apiUrl, kernelPid } = readSavedState(ctx);
  if (!kernelPid || !apiUrl) return;
  try {
    const { bundleText, publicKey, bundle } = await fetchLedger(apiUrl);
    const dir = jobTempDir('ledger', ctx.env);
    const file = join(dir, 'ledger-bundle.json');
    writeFileSync(file, bundleText);
    writeFileSync(join(dir, 'ledger.pub'), publicKey);
    const [, size, root] = String((bundle as { checkpoint?: unknown }).checkpoint ?? '').split(
      '\n',
    );
    ctx.info(`Exported the dry run's ledger: ${file} (${size} entries, root ${root}).`);
    await summarize(ctx, "lease-gate: the dry run's ledger", [
      ['bundle', file],
      ['public key', join(dir, 'ledger.pub')],
      ['entries', size ?? '?'],
      ['root', root ?? '?'],
      ['check it', `lease-gate verify ${file} --public-key ${join(dir, 'ledger.pub')}`],
    ]);
  } catch (error) {
    ctx.warning(`Could not export the dry run's ledger: ${errorMessage(error)}`);
  }
}

async function stopKernel(ctx: ActionContext): Promise<void> {
  const pid = readSavedState(ctx).kernelPid;
  if (!pid) return;
  if (await stopDryRunKernel(pid)) ctx.info("Stopped the dry run's local kernel.");
  else ctx.warning(`The dry run's local kernel (pid ${pid}) did not stop.`);
}
