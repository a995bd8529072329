import { formatDuration } from '../gate/duration.js';
import { LeaseRefusedError } from '../gate/wait.js';
import { describeHolder } from '../lease/did.js';
import { untrusted } from '../lease/escape.js';
import { HEALTH_HOLD_BY } from '../kernel/rules/freeze.js';
import {
  describeLapse,
  describeLease,
  describeWaitState,
  formatUtc,
  ASKED_ONCE,
  HEALTH_HOLD_WORDS,
} from '../lease/texts.js';
import { KeyRefusedError } from '../plane/errors.js';
import type { FreezeStatus } from '../plane/schema.js';
import {
  EXIT,
  UsageError,
  holderSettings,
  parse,
  settingsFromFlags,
  signalExitCode,
  type Output,
} from './options.js';
import { operatorName } from './freeze-commands.js';
import { cliSession, waitForLease, withSession } from './session.js';
import { describeDeploy, deployFor } from './deploy-flags.js';
import { optionsOf } from './flags/table.js';
import { ACQUIRE, RELEASE, STATUS } from './flags/plane.js';
import { REVOKE } from './flags/operator.js';
import { describeWaiter, queueOf } from './queue-view.js';
import { errorMessage } from '../errors.js';

/** `lease-gate acquire`: wait for the lease like the action does, print it. */
export async function acquire(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, optionsOf(ACQUIRE.flags));
  const settings = await holderSettings(values, env);
  const session = cliSession({ ...settings, ...deployFor(values, settings, env) }, io, env);
  try {
    const { result, stoppedBy } = await waitForLease(session, settings, io, {
      signals: ['SIGINT', 'SIGTERM'],
      quiet: values.json,
    });
    if (result.outcome === 'granted') {
      const { lease } = result.held;
      if (values.json)
        io.out(
          JSON.stringify({
            outcome: 'granted',
            lease,
            waitedMs: result.waitedMs,
            actorDid: settings.actorDid,
          }),
        );
      else {
        io.out(`acquired ${lease.resource} as ${lease.holder}: ${describeLease(lease)}`);
        io.err(
          `lease-gate: this lease ${describeLapse(lease, Date.now())} unless renewed; to hold it while a command runs, use \`lease-gate run\`.`,
        );
      }
      return EXIT.done;
    }
    if (values.json) io.out(JSON.stringify({ ...result, actorDid: settings.actorDid }));
    else
      io.err(
        result.outcome === 'timeout'
          ? settings.waitTimeoutMs === 0
            ? `${settings.resource} is ${describeWaitState(result)}; ${ASKED_ONCE}`
            : `timed out after ${formatDuration(result.waitedMs)}: ${settings.resource} is ${describeWaitState(result)}`
          : result.outcome === 'superseded'
            ? `superseded by ${untrusted(result.by, 2048)} while waiting; nothing is held`
            : `stopped${stoppedBy ? ` by ${stoppedBy}` : ''} while waiting; nothing is held`,
      );
    return result.outcome === 'cancelled' && stoppedBy ? signalExitCode(stoppedBy) : EXIT.refused;
  } finally {
    await session.close();
  }
}

/** `lease-gate release`: give back what this actor holds. */
export async function release(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, optionsOf(RELEASE.flags));
  const settings = await holderSettings(values, env);
  return withSession(settings, io, env, async (session) => {
    const answer = await session.client.release({
      resource: settings.resource,
      actorDid: settings.actorDid,
    });
    if (values.json) io.out(JSON.stringify(answer));
    else
      io.out(
        answer.released
          ? `released ${answer.releasedIds.join(', ')}`
          : `${settings.actorDid} held nothing on ${settings.resource}`,
      );
    return answer.released ? EXIT.done : EXIT.refused;
  });
}

/** `lease-gate status`: who holds the resource, without taking it. */
export async function status(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, optionsOf(STATUS.flags));
  const settings = settingsFromFlags(values, env);
  return withSession(settings, io, env, async (session) => {
    const { lease, frozen } = await session.client.statusOf(settings.resource);
    // The queue is the console's view beside the plane's answer: one that cannot be read
    // is said, and the holder still shown.
    const queue = await queueOf(settings, env).catch((error: unknown) => {
      io.err(
        `lease-gate: the queue of ${settings.resource} was not read: ${untrusted(errorMessage(error), 1_000)}`,
      );
      return undefined;
    });
    if (values.json)
      io.out(
        JSON.stringify({
          resource: settings.resource,
          lease,
          ...(frozen ? { freeze: frozen } : {}),
          queue: queue ?? null,
        }),
      );
    else {
      if (frozen) io.out(describeFreeze(settings.resource, frozen));
      if (lease)
        io.out(
          `${settings.resource} is held by ${describeHolder(lease.holder)}: ${describeLease(lease, formatUtc)}${lease.deploy ? `; deploying ${describeDeploy(lease.deploy)}` : ''}`,
        );
      else if (!frozen) io.out(`${settings.resource} is free`);
      // The waiters in line order, in the console's words; nothing when nobody waits.
      if (queue?.length) {
        io.out(`${queue.length} waiting:`);
        for (const w of queue) io.out(describeWaiter(w));
      }
    }
    return EXIT.done;
  });
}

/** "R is frozen by X until T: reason", every plane text escaped; the health gate's in its own words. */
export function describeFreeze(resource: string, frozen: FreezeStatus): string {
  const reason = untrusted(frozen.reason, 1_000);
  // The health check's hold is no operator's freeze.
  if (frozen.by === HEALTH_HOLD_BY)
    return `${resource} is ${HEALTH_HOLD_WORDS}: ${reason}; nobody new is granted it`;
  const until = frozen.untilMs === null ? 'until unfrozen' : `until ${formatUtc(frozen.untilMs)}`;
  return `${resource} is frozen by ${untrusted(frozen.by, 200)} ${until}: ${reason}; nobody new is granted it`;
}

/** "revoked R: ended lease L of <holder>", when the plane names them (escaped: plane text). */
function describeRevoked(
  resource: string,
  answer: { leaseId?: string | undefined; holder?: string | undefined },
): string {
  if (!answer.holder) return `revoked ${resource}`;
  const lease = answer.leaseId ? `lease ${untrusted(answer.leaseId, 256)}` : 'the lease';
  return `revoked ${resource}: ended ${lease} of ${describeHolder(answer.holder)}`;
}

/** `lease-gate revoke`: the operator's lever, with LEASE_GATE_ADMIN_KEY. */
export async function revoke(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, optionsOf(REVOKE.flags));
  const settings = settingsFromFlags(values, env);
  const by = operatorName(values.by);
  const adminKey = env.LEASE_GATE_ADMIN_KEY ?? '';
  if (!adminKey) throw new UsageError('revoke needs the admin key in LEASE_GATE_ADMIN_KEY.');
  const reason = values.reason ?? 'revoked by an operator';
  const session = cliSession(settings, io, env);
  try {
    const answer = await session.client.revoke(settings.resource, reason, adminKey, {}, by);
    if (values.json) io.out(JSON.stringify(answer));
    else
      io.out(
        answer.revoked
          ? describeRevoked(settings.resource, answer)
          : `${settings.resource} was not held`,
      );
    return answer.revoked ? EXIT.done : EXIT.refused;
  } catch (error) {
    if (error instanceof KeyRefusedError) {
      throw new LeaseRefusedError({
        reason: 'key refused',
        message: `The plane refused the admin key (${error.status}): check LEASE_GATE_ADMIN_KEY; revoking needs the kernel's admin key.`,
      });
    }
    throw error;
  } finally {
    await session.close();
  }
}
