import * as core from '@actions/core';
import { formatDuration } from '../gate/duration.js';
import { createPlaneClient } from '../plane/client.js';
import { parsePlaneUrl } from '../plane/url.js';
import { systemClock } from '../plane/time.js';
import { describeHolder } from './did.js';
import { STATE } from './io.js';
import { userMessage } from './main.js';
import { readKey } from './settings.js';
import { formatEpoch, writeSummary, type SummaryRow } from './summary.js';

/** The longest we keep trying to give a lease back: a lease lasts 30 s anyway. */
const MAX_RELEASE_BUDGET_MS = 30_000;
const MIN_RELEASE_BUDGET_MS = 1_000;

/** The post step: give back what main was granted. It never fails the job. */
export async function run(): Promise<void> {
  try {
    const key = readKey(core.getInput, process.env);
    if (key) core.setSecret(key);
    await cleanup(key);
  } catch (error) {
    core.warning(`lease-gate post step: ${userMessage(error)}`);
  }
}

async function cleanup(key: string): Promise<void> {
  const resource = core.getState(STATE.resource);
  const actorDid = core.getState(STATE.actorDid);
  const leaseId = core.getState(STATE.leaseId);
  if (!resource || !actorDid || !leaseId) {
    core.info('This job was granted no lease: nothing to release.');
    return;
  }
  const apiUrl = parsePlaneUrl(core.getState(STATE.apiUrl));
  if (!apiUrl.ok) throw new Error('the plane URL saved by the main step is not valid');
  const expiresAtMs = Number(core.getState(STATE.expiresAtMs));
  const rows: SummaryRow[] = [
    ['resource', resource],
    ['holder', describeHolder(actorDid)],
    ['lease id', leaseId],
    ['waited', formatDuration(Number(core.getState(STATE.waitedMs)) || 0)],
    ['held for', formatDuration(Date.now() - Number(core.getState(STATE.grantedAtMs)))],
  ];
  const fence = core.getState(STATE.fence);
  if (fence) rows.splice(3, 0, ['fence', fence]);

  const client = createPlaneClient({ apiUrl: apiUrl.url, key });
  // The plane's clock only sizes the retry budget here, bounded either way.
  const budget = Math.min(
    MAX_RELEASE_BUDGET_MS,
    Math.max(MIN_RELEASE_BUDGET_MS, expiresAtMs - Date.now() || 0),
  );
  let outcome: string;
  try {
    const answer = await client.release(
      { resource, actorDid },
      { retryUntilMs: systemClock.now() + budget },
    );
    if (answer.releasedIds.includes(leaseId)) {
      outcome = 'released';
      core.info(`Released ${resource} (lease ${leaseId}).`);
    } else {
      outcome = `not released: the plane released ${answer.releasedIds.join(', ') || 'nothing'}`;
      core.warning(
        `Released ${resource}, but the plane's answer does not name lease ${leaseId} (it named ${answer.releasedIds.join(', ') || 'none'}): the lease may have lapsed or been taken away before the post step.`,
      );
    }
  } catch (error) {
    outcome = 'release failed; it lapses on its own';
    core.warning(
      `Could not release ${resource} (lease ${leaseId}): ${userMessage(error)} The lease lapses on its own by ${formatEpoch(expiresAtMs)}.`,
    );
  }
  rows.push(['released', outcome]);
  await writeSummary(`lease-gate: ${resource} given back`, rows);
}
