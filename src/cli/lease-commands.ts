import { describeHolder } from '../action/did.js';
import { formatDuration } from '../gate/duration.js';
import { waitForLease } from '../gate/wait.js';
import type { Lease } from '../plane/schema.js';
import { realSleep, systemClock } from '../plane/time.js';
import {
  EXIT,
  PLANE_OPTIONS,
  UsageError,
  clientFor,
  parse,
  settingsFromFlags,
  type Output,
} from './options.js';

const describeLease = (lease: Lease) =>
  `lease ${lease.id}${lease.fence === undefined ? '' : `, fence ${lease.fence}`}, expires ${new Date(lease.expiresAtMs).toISOString()}`;

/** `lease-gate acquire`: wait for the lease like the action does, print it. */
export async function acquire(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, PLANE_OPTIONS);
  const settings = settingsFromFlags(values, env);
  const cancel = new AbortController();
  const stop = () => cancel.abort();
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const result = await waitForLease({
      client: clientFor(settings),
      resource: settings.resource,
      actorDid: settings.actorDid,
      timeoutMs: settings.waitTimeoutMs,
      clock: systemClock,
      sleep: realSleep,
      random: Math.random,
      signal: cancel.signal,
      onHeld: (event) => {
        if (!values.json) {
          io.err(
            `${settings.resource} is held by ${describeHolder(event.holder)}; next ask in ${formatDuration(event.nextAskInMs)}`,
          );
        }
      },
    });
    if (values.json) io.out(JSON.stringify({ ...result, actorDid: settings.actorDid }));
    if (result.outcome === 'granted') {
      const { lease } = result;
      if (!values.json) {
        io.out(`acquired ${lease.resource} as ${lease.holder}: ${describeLease(lease)}`);
      }
      return EXIT.done;
    }
    if (!values.json) {
      io.err(
        result.outcome === 'timeout'
          ? `timed out after ${formatDuration(result.waitedMs)}: ${settings.resource} is held by ${describeHolder(result.holder)}`
          : 'cancelled; nothing is held',
      );
    }
    return EXIT.refused;
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
}

/** `lease-gate release`: give back what this actor holds. */
export async function release(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, PLANE_OPTIONS);
  const settings = settingsFromFlags(values, env);
  const answer = await clientFor(settings).release({
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
}

/** `lease-gate status`: who holds the resource, without taking it. */
export async function status(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, PLANE_OPTIONS);
  const settings = settingsFromFlags(values, env);
  const lease = await clientFor(settings).status(settings.resource);
  if (values.json) io.out(JSON.stringify({ resource: settings.resource, lease }));
  else if (!lease) io.out(`${settings.resource} is free`);
  else
    io.out(
      `${settings.resource} is held by ${describeHolder(lease.holder)}: ${describeLease(lease)}`,
    );
  return EXIT.done;
}

/** `lease-gate revoke`: the operator's lever, with LEASE_GATE_ADMIN_KEY. */
export async function revoke(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(args, { ...PLANE_OPTIONS, reason: { type: 'string' } });
  const settings = settingsFromFlags(values, env);
  const adminKey = env.LEASE_GATE_ADMIN_KEY ?? '';
  if (!adminKey) throw new UsageError('revoke needs the admin key in LEASE_GATE_ADMIN_KEY.');
  const reason = values.reason ?? 'revoked by an operator';
  const answer = await clientFor(settings).revoke(settings.resource, reason, adminKey);
  if (values.json) io.out(JSON.stringify(answer));
  else
    io.out(answer.revoked ? `revoked ${settings.resource}` : `${settings.resource} was not held`);
  return answer.revoked ? EXIT.done : EXIT.refused;
}
