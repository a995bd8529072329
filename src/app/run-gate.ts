import { errorMessage } from '../errors.js';
import { formatDuration } from '../gate/duration.js';
import { LeaseRefusedError, LeaseRevokedError, type HeldEvent } from '../gate/wait.js';
import { shortHolder } from '../lease/did.js';
import { untrusted } from '../lease/escape.js';
import { openSession, type Held } from '../lease/session.js';
import type { PlaneClient } from '../plane/client.js';
import { KeyRefusedError } from '../plane/errors.js';
import type { Lease } from '../plane/schema.js';
import type { ApprovedRun } from './adopt.js';
import type { Review } from './approval.js';
import { workflowRunSchema } from './events.js';
import { endRun, reviewer, runKey, track, type Gate, type GateState, type Wait } from './gate.js';
import type { Repo } from './github.js';
import type { Delivery } from './receiver.js';

/**
 * A run waiting for its gate: it takes a place in the resource's queue under its DID,
 * waits (blocking acquire), and is approved when granted (approval.ts), or rejected with
 * the reason; while it waits or is kept, a run that ends leaves the queue.
 */

const PROGRESS_EVERY_MS = 60_000;

/** A run that takes its place in the queue of `resource`. */
export interface Serve {
  timeoutMs: number;
  placed: () => void;
  tag: string;
  did: string;
  resource: string;
  wait: Wait;
  installation: number;
  repo: Repo;
  runId: string;
  deploymentId: number;
  review: Review;
}

const sessionFor = (gate: Gate, did: string, resource: string) =>
  openSession({
    apiUrl: gate.config.planeUrl,
    key: gate.config.planeKey,
    resource,
    actorDid: did,
    client: gate.plane,
    clock: gate.clock,
    sleep: gate.sleep,
    random: gate.random,
    wallNow: gate.wallNow,
  });

/** A run approved before a restart whose DID still holds its lease (adopt.ts): kept as after an approval. */
export function keepApproved(gate: Gate, run: ApprovedRun): void {
  const { active } = gate.state;
  if (active.has(run.did)) return;
  const wait: Wait = { runKey: runKey(run.repository, run.runId), cancel: new AbortController() };
  active.set(run.did, wait);
  const review = reviewer(gate, run.installation, run.repo, run.runId, run.environment, run.tag);
  const s = { ...run, wait, review };
  const watching = new AbortController();
  const watch = watchRun(gate, s, watching.signal);
  void track(
    gate.state,
    gate.approver
      .keepForTakeUp(s, sessionFor(gate, run.did, run.resource).held(run.lease))
      .finally(async () => {
        watching.abort();
        await watch;
        active.delete(run.did);
      }),
  );
}

export async function serve(gate: Gate, s: Serve): Promise<void> {
  const session = sessionFor(gate, s.did, s.resource);
  gate.log(`${s.tag}: queued for ${s.resource} as ${s.did}`);
  // Before the ask: a lease this DID holds already is one an approved job may deploy under.
  const before = await heldBefore(gate, session.client, s);
  const watching = new AbortController();
  const watch = watchRun(gate, s, watching.signal);
  try {
    let result;
    try {
      const report = heldReporter(gate, s);
      result = await session.acquire({
        timeoutMs: s.timeoutMs,
        signal: s.wait.cancel.signal,
        onHeld: (event) => {
          s.placed();
          return report(event);
        },
      });
      s.placed();
    } catch (error) {
      s.placed();
      return await refused(s, error);
    }
    if (result.outcome === 'cancelled') {
      gate.log(
        `${s.tag}: ${s.wait.why === 'shutdown' ? 'the app is stopping' : 'the run ended'} while it waited; left the queue of ${s.resource}`,
      );
      return;
    }
    if (result.outcome === 'timeout') {
      return await s.review(
        'rejected',
        `lease-gate: waited longer than the configured maximum (${formatDuration(gate.config.maxWaitMs)}) for ${s.resource}, still ${result.reserved ? 'reserved for' : 'held by'} ${shortHolder(result.holder)}; not approved.`,
      );
    }
    if (result.outcome === 'superseded') {
      // The app asks in FIFO order, so only a plane that supersedes on its own gets here.
      return await s.review(
        'rejected',
        `lease-gate: a newer run took this run's place in the queue of ${s.resource}; not approved.`,
      );
    }
    await gate.approver.approve(s, result.held, renews(before, result.held));
  } finally {
    watching.abort();
    await watch;
  }
}

/** The ask failed: the run is rejected, saying why. */
async function refused(s: Serve, error: unknown): Promise<void> {
  if (error instanceof LeaseRevokedError) {
    return s.review(
      'rejected',
      `lease-gate: ${s.resource} is revoked for this run: ${error.operatorMessage}`,
    );
  }
  const why =
    error instanceof LeaseRefusedError
      ? `the plane refused ${s.resource}: ${error.reason}`
      : error instanceof KeyRefusedError && error.status === 403
        ? // The kernel's policy or a scoped key: it names what the key may act as.
          `the plane does not let this run have ${s.resource}: ${errorMessage(error)}`
        : `the plane failed: ${errorMessage(error)}`;
  return s.review('rejected', `lease-gate: ${why}; not approved.`);
}

/**
 * What the plane says of the resource before this ask: the lease when this run's DID holds
 * it (after a restart, a redelivery: the run was approved and its job may hold it), none
 * when another or nobody does, `unknown` when the plane could not say.
 */
async function heldBefore(
  { log }: Pick<Gate, 'log'>,
  client: PlaneClient,
  s: Serve,
): Promise<Lease | 'unknown' | undefined> {
  try {
    const lease = await client.status(s.resource, { signal: s.wait.cancel.signal });
    return lease?.holder === s.did ? lease : undefined;
  } catch (error) {
    log(`${s.tag}: could not ask the plane who holds ${s.resource} (${errorMessage(error)})`);
    return 'unknown';
  }
}

/**
 * True unless this ask newly granted the lease: the kernel keeps a lease's id on a renewal,
 * so the same id as before is the DID's own lease renewed, and an unknown before counts as
 * one (giving back a lease a job may deploy under is the worse mistake).
 */
function renews(before: Lease | 'unknown' | undefined, held: Held): boolean {
  return before === 'unknown' || before?.id === held.lease.id;
}

function heldReporter({ config, github, log }: Gate, s: Serve) {
  let lastLineAt = -Infinity;
  return async (event: HeldEvent) => {
    const by = `${event.reserved ? 'reserved for' : 'held by'} ${shortHolder(event.holder)}`;
    if (!event.holderChanged && event.elapsedMs - lastLineAt < PROGRESS_EVERY_MS) return;
    lastLineAt = event.elapsedMs;
    log(
      `${s.tag}: waiting for ${s.resource}: ${untrusted(by, 300)}; waited ${formatDuration(event.elapsedMs)}`,
    );
    if (event.holderChanged && config.deploymentStatus) {
      await github
        .deploymentStatus(
          s.installation,
          s.repo,
          s.deploymentId,
          `lease-gate: waiting for ${s.resource}, ${by}`,
        )
        .catch((error: unknown) =>
          log(`${s.tag}: could not post the waiting status: ${errorMessage(error)}`),
        );
    }
  };
}

/** A bounded check of the run's status while it waits or is kept: a missed event must not keep a place. */
async function watchRun(
  { config, github, log, sleep }: Gate,
  s: Pick<Serve, 'installation' | 'repo' | 'runId' | 'tag' | 'wait'>,
  stop: AbortSignal,
): Promise<void> {
  while (!stop.aborted) {
    try {
      await sleep(config.runCheckEveryMs, stop);
    } catch {
      return;
    }
    if (stop.aborted) return;
    try {
      const run = await github.getRun(s.installation, s.repo, s.runId);
      if (run.status === 'completed') return endRun(s.wait);
    } catch (error) {
      log(`${s.tag}: could not check the run's status: ${errorMessage(error)}`);
    }
  }
}

/** A `workflow_run` delivery: a completed run's waits end (it leaves the queue, its kept lease is given back). */
export function workflowRun(state: GateState, delivery: Delivery): void {
  const parsed = workflowRunSchema.safeParse(delivery.payload);
  if (!parsed.success || parsed.data.action !== 'completed') return;
  const key = runKey(parsed.data.repository.full_name, String(parsed.data.workflow_run.id));
  for (const wait of state.active.values()) if (wait.runKey === key) endRun(wait);
}
