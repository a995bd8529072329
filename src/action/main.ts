import { formatDuration } from '../gate/duration.js';
import { LeaseRefusedError, type HeldEvent } from '../gate/wait.js';
import { KeyRefusedError } from '../plane/errors.js';
import {
  spawnKeeper,
  startDryRunKernel,
  waitForFirstRenewal,
  waitForKeeper,
} from '../lease/background.js';
import { describeHolder, shortHolder } from '../lease/did.js';
import { errorMessage } from '../errors.js';
import { HelperError } from '../lease/errors.js';
import { helperCommand, type HelperCommand } from '../lease/helpers.js';
import { openSession, type Acquired, type Held } from '../lease/session.js';
import type { Deploy } from '../plane/deploy.js';
import { mayTakeUp } from '../lease/take-up.js';
import {
  describeWaitState,
  formatEpoch,
  HEALTH_HOLD_WORDS,
  healthHold,
  waitNotices,
} from '../lease/texts.js';
import { summarize, type ActionContext } from './context.js';
import { coreContext } from './core-context.js';
import { checkDeployOrder, deployRows, reportSuperseded } from './deploy-report.js';
import { GitHubSurfaces } from './github.js';
import { OUTPUTS, STATE, outputValue, type OutputName } from './io.js';
import { readKey, readSettings, type ActionSettings } from './settings.js';

export interface MainOptions {
  /**
   * Where the helper processes (keeper, dry-run kernel) are found; by default
   * from this module's own location. Tests point it at a missing or failing
   * file to check that main fails closed.
   */
  helper?: () => HelperCommand;
}

/** How long main renews alongside a started keeper at most, waiting for its first renewal. */
const RENEWAL_HANDOVER_MS = 10_000;

/** Every output goes through here: bounded, one line. */
function setOutput(ctx: ActionContext, name: OutputName, value: string): void {
  ctx.setOutput(name, outputValue(value));
}

/** The main step: validate, take the lease (waiting if held), hand it to post. */
export async function run(
  ctx: ActionContext = coreContext(),
  options: MainOptions = {},
): Promise<void> {
  const helper = options.helper ?? (() => helperCommand());
  // Masked before anything else can print it.
  const rawKey = readKey(ctx);
  if (rawKey) ctx.setSecret(rawKey);
  try {
    const settings = readSettings(ctx);
    if (settings.githubToken) ctx.setSecret(settings.githubToken);
    const ready = settings.dryRun ? await useDryRunKernel(ctx, settings, helper) : settings;
    await acquire(ctx, ready, helper);
  } catch (error) {
    // A refusal means nothing was granted; anything else may have followed a grant, which post then releases.
    if (error instanceof KeyRefusedError || error instanceof LeaseRefusedError) {
      ctx.saveState(STATE.outcome, 'none');
    }
    ctx.setFailed(errorMessage(error));
  }
}

async function acquire(
  ctx: ActionContext,
  settings: ActionSettings,
  helper: () => HelperCommand,
): Promise<void> {
  const { resource, actorDid } = settings;
  setOutput(ctx, OUTPUTS.actorDid, actorDid);
  // Before the first ask: whatever happens next, post can release by (resource, own DID).
  ctx.saveState(STATE.resource, resource);
  ctx.saveState(STATE.actorDid, actorDid);
  ctx.saveState(STATE.apiUrl, settings.apiUrl);
  ctx.info(`Asking ${settings.apiUrl} for ${resource} as ${actorDid}`);
  const session = openSession({ ...settings, env: ctx.env, keyHint: ACTION_KEY_HINT });
  const github = new GitHubSurfaces(settings.githubToken, settings.statusContext, ctx.env, (m) =>
    ctx.warning(m),
  );
  const cancel = new AbortController();
  const onSignal = (signal: string) => {
    ctx.info(`Received ${signal}: stopping the wait.`);
    cancel.abort();
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const result = await session
      .acquire({
        timeoutMs: settings.waitTimeoutMs,
        signal: cancel.signal,
        onHeld: holdReporter(ctx, settings, github),
        takeUp: (holder) => mayTakeUp(actorDid, holder),
      })
      .finally(() => process.off('SIGINT', onSignal).off('SIGTERM', onSignal));
    await report(ctx, takenUp(ctx, settings, result), result, github, helper);
  } finally {
    await session.close();
  }
}

/** A lease the protection-rule app was granted for this run: kept and released as its DID. */
function takenUp(ctx: ActionContext, settings: ActionSettings, result: Acquired): ActionSettings {
  if (result.outcome !== 'granted' || !result.takenUp) return settings;
  const actorDid = result.held.lease.holder;
  ctx.saveState(STATE.actorDid, actorDid);
  ctx.setOutput(OUTPUTS.actorDid, actorDid);
  ctx.info(
    `Taken up lease ${result.held.lease.id}: the protection-rule app was granted it for this run before the job started, as ${actorDid}.`,
  );
  return { ...settings, actorDid };
}

/** A dry run gets its own kernel on loopback; its pid is saved first, so post stops it. */
async function useDryRunKernel(
  ctx: ActionContext,
  settings: ActionSettings,
  helper: () => HelperCommand,
): Promise<ActionSettings> {
  let kernel: Awaited<ReturnType<typeof startDryRunKernel>>;
  try {
    kernel = await startDryRunKernel({
      env: ctx.env,
      helper: helper(),
      onPid: (pid, dir) => {
        ctx.saveState(STATE.dryRun, 'true');
        ctx.saveState(STATE.kernelPid, String(pid));
        ctx.saveState(STATE.kernelDir, dir);
      },
    });
  } catch (error) {
    ctx.saveState(STATE.outcome, 'none');
    throw new HelperError(
      `Dry run: the local kernel did not start: ${errorMessage(error)}. Nothing was asked for; this job holds no lease.`,
      { cause: error },
    );
  }
  ctx.info(
    `Dry run: using this job's own local kernel at ${kernel.apiUrl}. No key is used and nothing leaves this machine; no other job is gated.`,
  );
  return { ...settings, apiUrl: kernel.apiUrl, key: '' };
}

/** Where the action takes its key from, for a refusal's message. */
export const ACTION_KEY_HINT = "the 'key' input or LEASE_GATE_KEY (INTRAMEDIAL_KEY)";

/** The holder's run is named in the notice if GitHub answers this soon; else in a later line. */
const RUN_LOOKUP_IN_NOTICE_MS = 1_000;

function holdReporter(ctx: ActionContext, settings: ActionSettings, github: GitHubSurfaces) {
  const notices = waitNotices(settings.resource);
  return async (event: HeldEvent) => {
    const line = notices(event);
    if (!line) return;
    if (!event.holderChanged) return ctx.info(`Waiting for ${line}.`);
    // The notice must not wait for GitHub: it is the wait's first word.
    const lookup = event.frozen
      ? Promise.resolve(undefined)
      : github.holderRun(event.holder, Date.now());
    const run = await Promise.race([lookup, delay(RUN_LOOKUP_IN_NOTICE_MS)]);
    ctx.notice(
      `${line}.${run ? ` That is ${run}.` : ''} Waiting up to ${formatDuration(settings.waitTimeoutMs)}.`,
      `Waiting for ${settings.resource}`,
    );
    if (!run) {
      const late = await lookup;
      if (late) ctx.info(`The holder of ${settings.resource} is ${late}.`);
    }
    const verb = event.frozen
      ? healthHold(event.frozen.message)
        ? HEALTH_HOLD_WORDS
        : 'frozen by an operator'
      : `${event.reserved ? 'reserved for' : 'held by'} ${shortHolder(event.holder)}`;
    await github.status(
      'pending',
      `Waiting: ${verb} (seen ${new Date().toISOString().slice(11, 19)}Z)`,
    );
  };
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}

async function report(
  ctx: ActionContext,
  settings: ActionSettings,
  result: Acquired,
  github: GitHubSurfaces,
  helper: () => HelperCommand,
) {
  setOutput(ctx, OUTPUTS.waitedMs, String(Math.round(result.waitedMs)));
  if (result.outcome === 'granted') {
    return reportGranted(ctx, settings, result, github, helper);
  }
  if (result.outcome === 'superseded') {
    return reportSuperseded(ctx, settings, result, github, formatDuration(result.waitedMs));
  }
  setOutput(ctx, OUTPUTS.acquired, 'false');
  ctx.saveState(STATE.outcome, 'none');
  if (result.outcome === 'cancelled') {
    ctx.setFailed(`Cancelled while waiting for ${settings.resource}; this job holds nothing.`);
    await github.status('error', 'Cancelled while waiting; this job held nothing');
    return;
  }
  const waited = formatDuration(result.waitedMs);
  setOutput(ctx, OUTPUTS.holder, result.holder);
  // wait-timeout: 0 asks once, as told: that is not a timeout, and is not said as one.
  const once = settings.waitTimeoutMs === 0;
  const who = `${result.reserved ? 'reserved for' : 'held by'} ${shortHolder(result.holder)}`;
  await github.status('failure', once ? `Asked once: ${who}` : `Timed out after ${waited}: ${who}`);
  const message = once
    ? `${settings.resource} is ${describeWaitState(result)}; asked once (wait-timeout: 0).`
    : `Timed out after ${waited} waiting for ${settings.resource}: still ${describeWaitState(result)}.`;
  const fail = settings.onTimeout === 'fail';
  if (fail) ctx.setFailed(message);
  else ctx.warning(`${message} Continuing with acquired=false (on-timeout: skip).`);
  await summarize(ctx, `lease-gate: ${settings.resource} not acquired`, [
    ['resource', settings.resource],
    [result.reserved ? 'reserved for' : 'held by', describeHolder(result.holder)],
    ['waited', waited],
    ['outcome', `${once ? 'asked once' : 'timed out'} (${fail ? 'step failed' : 'skipped'})`],
  ]);
}

async function reportGranted(
  ctx: ActionContext,
  settings: ActionSettings,
  { held, previous }: { held: Held; previous?: Deploy },
  github: GitHubSurfaces,
  helper: () => HelperCommand,
) {
  const { resource } = settings;
  const { lease } = held;
  // State first: whatever happens next, post can give the lease back.
  ctx.saveState(STATE.leaseId, lease.id);
  ctx.saveState(STATE.outcome, 'granted');
  ctx.saveState(STATE.expiresAtMs, String(lease.expiresAtMs));
  ctx.saveState(STATE.grantedAtMs, String(Date.now()));
  ctx.saveState(STATE.waitedMs, String(Math.round(held.waitedMs)));
  if (lease.fence !== undefined) ctx.saveState(STATE.fence, String(lease.fence));
  if (!(await checkDeployOrder(ctx, settings, held, previous, github))) return;
  if (settings.keepAlive && !(await startKeeper(ctx, settings, held, helper))) return;
  setOutput(ctx, OUTPUTS.acquired, 'true');
  setOutput(ctx, OUTPUTS.leaseId, lease.id);
  setOutput(ctx, OUTPUTS.holder, lease.holder);
  setOutput(ctx, OUTPUTS.expiresAtMs, String(lease.expiresAtMs));
  if (lease.fence !== undefined) setOutput(ctx, OUTPUTS.fence, String(lease.fence));
  const fence = lease.fence === undefined ? '' : `, fence ${lease.fence}`;
  await github.status('success', `Holding lease ${lease.id}${fence}`);
  ctx.notice(
    `Acquired ${resource} as ${lease.holder} (lease ${lease.id}${fence}) after ${formatDuration(held.waitedMs)}.`,
    `Holding ${resource}`,
  );
  const rows: Array<[string, string]> = [
    ['resource', resource],
    ['holder', describeHolder(lease.holder)],
    ['lease id', lease.id],
    ...deployRows(settings.deploy, ctx.env),
  ];
  if (lease.fence !== undefined) rows.push(['fence', String(lease.fence)]);
  rows.push(
    ['waited', formatDuration(held.waitedMs)],
    ['expires', formatEpoch(lease.expiresAtMs)],
    ['released', 'not yet: the post step gives it back'],
  );
  if (settings.dryRun) rows.push(['mode', 'dry run on a local kernel']);
  await summarize(ctx, `lease-gate: holding ${resource}`, rows);
}

/**
 * Starts the keeper and waits for its first record. Fails closed: a keeper
 * that did not start means the step fails and the lease is given back.
 */
async function startKeeper(
  ctx: ActionContext,
  settings: ActionSettings,
  held: Held,
  findHelper: () => HelperCommand,
): Promise<boolean> {
  let problem: string;
  // Main renews in its own process until the keeper has renewed once: a keeper slow to start
  // must not let a short lease (1.5 s) lapse between the grant and its first renewal.
  const bridge = new AbortController();
  const bridging = held.keep({ signal: bridge.signal, noWatch: true }).catch(() => undefined);
  try {
    const helper = findHelper();
    const keeper = spawnKeeper({
      ...settings,
      lease: held.lease,
      env: ctx.env,
      helper,
      onStatusFile: (file) => ctx.saveState(STATE.keeperStatus, file),
      onPid: (pid) => ctx.saveState(STATE.keeperPid, String(pid)),
    });
    if (await waitForKeeper(keeper, helper.fromSource)) {
      await waitForFirstRenewal(keeper, RENEWAL_HANDOVER_MS);
      ctx.info(
        `Keeping the lease alive in the background (pid ${keeper.pid}) until the post step.`,
      );
      return true;
    }
    const ended = keeper.exited();
    problem = ended
      ? `the keeper (pid ${keeper.pid}) exited (${ended}) before it wrote its status`
      : `the keeper (pid ${keeper.pid}) wrote no status`;
  } catch (error) {
    problem = errorMessage(error);
  } finally {
    bridge.abort();
    await bridging;
  }
  const released = await held.release();
  ctx.saveState(STATE.leaseId, '');
  setOutput(ctx, OUTPUTS.acquired, 'false');
  ctx.setFailed(
    `Keep-alive was asked for, but the keeper did not start (${problem}); the lease was ${released.kind === 'released' ? 'given back' : 'not confirmed given back (it lapses on its own)'}. Without a keeper the lease would lapse at ${formatEpoch(held.lease.expiresAtMs).split(' ')[0]} (its expiry as the plane answered) while the job still deploys.`,
  );
  return false;
}
