import * as core from '@actions/core';
import { randomBytes } from 'node:crypto';
import { formatDuration } from '../gate/duration.js';
import { waitForLease, type HeldEvent, type WaitResult } from '../gate/wait.js';
import { createPlaneClient } from '../plane/client.js';
import { realSleep, systemClock } from '../plane/time.js';
import { startDryRunKernel, startKeeper } from './background.js';
import { describeHolder, shortHolder } from './did.js';
import { GitHubSurfaces } from './surfaces.js';
import { OUTPUTS, STATE } from './io.js';
import { readKey, readSettings, type Settings } from './settings.js';
import { userMessage } from './user-message.js';
import { formatEpoch, writeSummary, type SummaryRow } from './summary.js';

/** The main step: validate, take the lease (waiting if held), hand it to post. */
export async function run(): Promise<void> {
  // Masked before anything else can print it.
  const rawKey = readKey(core.getInput, process.env);
  if (rawKey) core.setSecret(rawKey);
  try {
    const settings = readSettings((name) => core.getInput(name), process.env, nonce());
    if (settings.githubToken) core.setSecret(settings.githubToken);
    await acquire(settings);
  } catch (error) {
    core.setFailed(userMessage(error));
  }
}

async function acquire(given: Settings): Promise<void> {
  const settings = given.dryRun ? await useDryRunKernel(given) : given;
  const { resource, actorDid } = settings;
  core.setOutput(OUTPUTS.actorDid, actorDid);
  core.saveState(STATE.resource, resource);
  core.saveState(STATE.actorDid, actorDid);
  core.saveState(STATE.apiUrl, settings.apiUrl);
  core.info(`Asking ${settings.apiUrl} for ${resource} as ${actorDid}`);

  const client = createPlaneClient({ apiUrl: settings.apiUrl, key: settings.key });
  const github = new GitHubSurfaces(
    settings.githubToken,
    settings.statusContext,
    process.env,
    (m) => core.warning(m),
  );
  const cancel = new AbortController();
  const onSignal = (signal: string) => {
    core.info(`Received ${signal}: stopping the wait.`);
    cancel.abort();
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  let result: WaitResult;
  try {
    result = await waitForLease({
      client,
      resource,
      actorDid,
      timeoutMs: settings.waitTimeoutMs,
      clock: systemClock,
      sleep: realSleep,
      random: Math.random,
      signal: cancel.signal,
      onHeld: holdReporter(settings, github),
    });
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
  await report(settings, result, github);
  if (result.outcome === 'granted' && settings.keepAlive) {
    const keeper = startKeeper({ ...settings, lease: result.lease });
    core.saveState(STATE.keeperPid, String(keeper.pid));
    core.saveState(STATE.keeperStatus, keeper.statusFile);
    core.info(`Keeping the lease alive in the background (pid ${keeper.pid}) until the post step.`);
  }
}

/** A dry run gets its own kernel on loopback; post stops it. */
async function useDryRunKernel(settings: Settings): Promise<Settings> {
  const kernel = await startDryRunKernel();
  core.saveState(STATE.dryRun, 'true');
  core.saveState(STATE.kernelPid, String(kernel.pid));
  core.saveState(STATE.kernelDir, kernel.dir);
  core.info(
    `Dry run: using this job's own local kernel at ${kernel.apiUrl}. No key is used and nothing leaves this machine; no other job is gated.`,
  );
  return { ...settings, apiUrl: kernel.apiUrl, key: '' };
}

/** Log lines at most this often while the holder stays the same; asks may be far more frequent. */
const PROGRESS_EVERY_MS = 10_000;

function holdReporter(
  settings: Settings,
  github: GitHubSurfaces,
): (event: HeldEvent) => Promise<void> {
  let lastLineAt = -Infinity;
  return async (event) => {
    const holder = describeHolder(event.holder);
    if (event.holderChanged) {
      const run = await github.holderRun(event.holder, Date.now());
      core.notice(
        `${settings.resource} is held by ${holder}.${run ? ` That is ${run}.` : ''} Waiting up to ${formatDuration(settings.waitTimeoutMs)}.`,
        { title: `Waiting for ${settings.resource}` },
      );
      await github.status(
        'pending',
        `Waiting: held by ${shortHolder(event.holder)} (seen ${new Date().toISOString().slice(11, 19)}Z)`,
      );
    }
    if (!event.holderChanged && event.elapsedMs - lastLineAt < PROGRESS_EVERY_MS) return;
    lastLineAt = event.elapsedMs;
    core.info(
      `Waiting for ${settings.resource}: held by ${holder}; waited ${formatDuration(event.elapsedMs)}, next ask in ${formatDuration(event.nextAskInMs)}.`,
    );
  };
}

async function report(
  settings: Settings,
  result: WaitResult,
  github: GitHubSurfaces,
): Promise<void> {
  core.setOutput(OUTPUTS.waitedMs, String(Math.round(result.waitedMs)));
  if (result.outcome === 'granted') return reportGranted(settings, result, github);
  core.setOutput(OUTPUTS.acquired, 'false');
  if (result.outcome === 'timeout') return reportTimeout(settings, result, github);
  core.setFailed(`Cancelled while waiting for ${settings.resource}; this job holds nothing.`);
  await github.status('error', 'Cancelled while waiting; this job held nothing');
}

async function reportTimeout(
  settings: Settings,
  result: Extract<WaitResult, { outcome: 'timeout' }>,
  github: GitHubSurfaces,
): Promise<void> {
  const { resource } = settings;
  const waited = formatDuration(result.waitedMs);
  core.setOutput(OUTPUTS.holder, result.holder);
  await github.status(
    'failure',
    `Timed out after ${waited}: held by ${shortHolder(result.holder)}`,
  );
  const message = `Timed out after ${waited} waiting for ${resource}: still held by ${describeHolder(result.holder)}.`;
  const fail = settings.onTimeout === 'fail';
  if (fail) core.setFailed(message);
  else core.warning(`${message} Continuing with acquired=false (on-timeout: skip).`);
  await writeSummary(`lease-gate: ${resource} not acquired`, [
    ['resource', resource],
    ['held by', describeHolder(result.holder)],
    ['waited', waited],
    ['outcome', fail ? 'timed out (step failed)' : 'timed out (skipped)'],
  ]);
}

async function reportGranted(
  settings: Settings,
  result: Extract<WaitResult, { outcome: 'granted' }>,
  github: GitHubSurfaces,
): Promise<void> {
  const { resource } = settings;
  const { lease } = result;
  // State first: whatever happens next, post can give the lease back.
  core.saveState(STATE.leaseId, lease.id);
  core.saveState(STATE.expiresAtMs, String(lease.expiresAtMs));
  core.saveState(STATE.grantedAtMs, String(Date.now()));
  core.saveState(STATE.waitedMs, String(Math.round(result.waitedMs)));
  if (lease.fence !== undefined) core.saveState(STATE.fence, String(lease.fence));
  core.setOutput(OUTPUTS.acquired, 'true');
  core.setOutput(OUTPUTS.leaseId, lease.id);
  core.setOutput(OUTPUTS.holder, lease.holder);
  core.setOutput(OUTPUTS.expiresAtMs, String(lease.expiresAtMs));
  if (lease.fence !== undefined) core.setOutput(OUTPUTS.fence, String(lease.fence));
  const fence = lease.fence === undefined ? '' : `, fence ${lease.fence}`;
  await github.status('success', `Holding lease ${lease.id}${fence}`);
  core.notice(
    `Acquired ${resource} as ${lease.holder} (lease ${lease.id}${fence}) after ${formatDuration(result.waitedMs)}.`,
    { title: `Holding ${resource}` },
  );
  const rows: SummaryRow[] = [
    ['resource', resource],
    ['holder', describeHolder(lease.holder)],
    ['lease id', lease.id],
  ];
  if (lease.fence !== undefined) rows.push(['fence', String(lease.fence)]);
  rows.push(
    ['waited', formatDuration(result.waitedMs)],
    ['expires', formatEpoch(lease.expiresAtMs)],
    ['released', 'not yet: the post step gives it back'],
  );
  if (settings.dryRun) rows.push(['mode', 'dry run on a local kernel']);
  await writeSummary(`lease-gate: holding ${resource}`, rows);
}

function nonce(): string {
  return randomBytes(4).toString('hex');
}
