import * as core from '@actions/core';
import { formatDuration } from '../gate/duration.js';
import type { KeeperStatus } from '../gate/keep.js';
import { createPlaneClient } from '../plane/client.js';
import { systemClock } from '../plane/time.js';
import { parsePlaneUrl } from '../plane/url.js';
import { jobTempDir, stopDryRunKernel, stopKeeper } from './background.js';
import { fetchLedger } from '../ledger/remote.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeHolder, shortHolder } from './did.js';
import { GitHubSurfaces } from './surfaces.js';
import { INPUTS, STATE } from './io.js';
import { userMessage } from './user-message.js';
import { readKey } from './settings.js';
import { formatEpoch, writeSummary, type SummaryRow } from './summary.js';

/** The longest we keep trying to give a lease back: a lease lasts 30 s anyway. */
const MAX_RELEASE_BUDGET_MS = 30_000;
const MIN_RELEASE_BUDGET_MS = 1_000;

/** The post step: stop the keeper, give back what main was granted. It never fails the job. */
export async function run(): Promise<void> {
  try {
    const key = readKey(core.getInput, process.env);
    if (key) core.setSecret(key);
    const token = core.getInput(INPUTS.githubToken);
    if (token) core.setSecret(token);
    const context = core
      .getInput(INPUTS.statusContext)
      .replaceAll('{resource}', core.getState(STATE.resource));
    await cleanup(key, new GitHubSurfaces(token, context, process.env, (m) => core.warning(m)));
  } catch (error) {
    core.warning(`lease-gate post step: ${userMessage(error)}`);
  } finally {
    await exportDryRunLedger();
    await stopKernel();
  }
}

/** A dry run's audit trail: the kernel's ledger bundle and public key, kept under RUNNER_TEMP. */
async function exportDryRunLedger(): Promise<void> {
  const apiUrl = core.getState(STATE.apiUrl);
  if (!core.getState(STATE.kernelPid) || !apiUrl) return;
  try {
    const { bundleText, publicKey, bundle } = await fetchLedger(apiUrl);
    const dir = jobTempDir('ledger');
    const file = join(dir, 'ledger-bundle.json');
    writeFileSync(file, bundleText);
    writeFileSync(join(dir, 'ledger.pub'), publicKey);
    const [, size, root] = (bundle as { checkpoint: string }).checkpoint.split('\n');
    core.info(`Exported the dry run's ledger: ${file} (${size} entries, root ${root}).`);
    await writeSummary("lease-gate: the dry run's ledger", [
      ['bundle', file],
      ['public key', join(dir, 'ledger.pub')],
      ['entries', size ?? '?'],
      ['root', root ?? '?'],
      ['check it', `lease-gate verify ${file} --public-key ${join(dir, 'ledger.pub')}`],
    ]);
  } catch (error) {
    core.warning(`Could not export the dry run's ledger: ${userMessage(error)}`);
  }
}

async function cleanup(key: string, github: GitHubSurfaces): Promise<void> {
  const resource = core.getState(STATE.resource);
  const actorDid = core.getState(STATE.actorDid);
  const grantedId = core.getState(STATE.leaseId);
  if (!resource || !actorDid || !grantedId) {
    core.info('This job was granted no lease: nothing to release.');
    return;
  }
  const keeper = await readKeeper();
  const leaseId = keeper?.leaseId ?? grantedId;
  const expiresAtMs = keeper?.expiresAtMs ?? Number(core.getState(STATE.expiresAtMs));
  const fence = keeper?.fence ?? core.getState(STATE.fence);
  const heldFor = formatDuration(Date.now() - Number(core.getState(STATE.grantedAtMs)));
  const rows: SummaryRow[] = [
    ['resource', resource],
    ['holder', describeHolder(actorDid)],
    ['lease id', leaseId],
    ...(fence === '' || fence === undefined ? [] : ([['fence', String(fence)]] as SummaryRow[])),
    ['waited', formatDuration(Number(core.getState(STATE.waitedMs)) || 0)],
    ['held for', heldFor],
    ['expires', formatEpoch(expiresAtMs)],
  ];
  if (core.getState(STATE.dryRun)) rows.push(['mode', 'dry run on a local kernel']);
  if (keeper) rows.push(['renewals', describeKeeper(keeper)]);

  if (keeper?.lost) {
    const { holder, reason, atMs } = keeper.lost;
    core.error(
      `Lost ${resource} at ${new Date(atMs).toISOString()}: ${holder ? `it is now held by ${describeHolder(holder)}` : `the plane refused the renewal (${reason})`}. This job was not exclusive after that moment; nothing was released.`,
      { title: `Lost ${resource}` },
    );
    rows.push(['released', `no: lost at ${new Date(atMs).toISOString()}`]);
    await github.status(
      'failure',
      `Lost at ${new Date(atMs).toISOString().slice(11, 19)}Z to ${holder ? shortHolder(holder) : reason}`,
    );
    await writeSummary(`lease-gate: ${resource} was lost`, rows);
    return;
  }
  for (const gap of keeper?.gaps ?? []) {
    core.warning(
      `${resource} lapsed and was granted again at ${new Date(gap.atMs).toISOString()} (lease ${gap.previousLeaseId} → ${gap.leaseId}): exclusivity had a gap of about ${formatDuration(gap.gapMs)}.`,
      { title: `Gap in ${resource}` },
    );
  }
  if (keeper?.ended && keeper.ended.why !== 'stopped') {
    core.warning(
      `The keeper stopped early (${keeper.ended.why})${keeper.lastError ? `: ${keeper.lastError}` : ''}.`,
    );
  }

  const outcome = await release(resource, actorDid, leaseId, expiresAtMs, key);
  rows.push(['released', outcome]);
  await github.status(
    'success',
    `${outcome === 'released' ? 'Released' : 'Done'} after holding ${heldFor} (lease ${leaseId})`,
  );
  await writeSummary(`lease-gate: ${resource} given back`, rows);
}

async function release(
  resource: string,
  actorDid: string,
  leaseId: string,
  expiresAtMs: number,
  key: string,
): Promise<string> {
  const apiUrl = parsePlaneUrl(core.getState(STATE.apiUrl));
  if (!apiUrl.ok) throw new Error('the plane URL saved by the main step is not valid');
  const client = createPlaneClient({ apiUrl: apiUrl.url, key });
  // The plane's clock only sizes the retry budget here, bounded either way.
  const budget = Math.min(
    MAX_RELEASE_BUDGET_MS,
    Math.max(MIN_RELEASE_BUDGET_MS, expiresAtMs - Date.now() || 0),
  );
  try {
    const answer = await client.release(
      { resource, actorDid },
      { retryUntilMs: systemClock.now() + budget },
    );
    if (answer.releasedIds.includes(leaseId)) {
      core.info(`Released ${resource} (lease ${leaseId}).`);
      return 'released';
    }
    const named = answer.releasedIds.join(', ') || 'none';
    core.warning(
      `Released ${resource}, but the plane's answer does not name lease ${leaseId} (it named ${named}): the lease may have lapsed or been taken away before the post step.`,
    );
    return `not confirmed: the plane released ${named}`;
  } catch (error) {
    core.warning(
      `Could not release ${resource} (lease ${leaseId}): ${userMessage(error)} The lease lapses on its own by ${formatEpoch(expiresAtMs)}.`,
    );
    return 'release failed; it lapses on its own';
  }
}

async function readKeeper(): Promise<KeeperStatus | undefined> {
  const pid = Number(core.getState(STATE.keeperPid));
  const file = core.getState(STATE.keeperStatus);
  if (!pid || !file) return undefined;
  const status = await stopKeeper(pid, file);
  if (!status)
    core.warning(
      'The keeper left no status (it may have been stopped before it started): renewals are unknown.',
    );
  return status;
}

function describeKeeper(status: KeeperStatus): string {
  const last = status.lastRenewedAtMs
    ? `, last at ${new Date(status.lastRenewedAtMs).toISOString()}`
    : '';
  const failures = status.failures ? `, ${status.failures} failed attempt(s)` : '';
  const gaps = status.gaps.length ? `, ${status.gaps.length} gap(s)` : '';
  return `${status.renewals}${last}${failures}${gaps}`;
}

async function stopKernel(): Promise<void> {
  const pid = Number(core.getState(STATE.kernelPid));
  if (!pid) return;
  if (await stopDryRunKernel(pid)) core.info("Stopped the dry run's local kernel.");
  else core.warning(`The dry run's local kernel (pid ${pid}) did not stop.`);
}
