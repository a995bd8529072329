import { isLoopbackHost } from '../plane/url.js';
import { UsageError } from './options.js';

/** The shortest key a kernel reachable beyond loopback takes (a guessable key is no key). */
export const MIN_KEY_LENGTH = 16;

export interface KernelKeys {
  /** LEASE_GATE_KERNEL_KEY: every job holds it. */
  key: string | undefined;
  /** LEASE_GATE_ADMIN_KEY: revoke, freeze, break glass. */
  adminKey: string | undefined;
  /** LEASE_GATE_APPROVER_KEY: the second operator's, for break-glass. */
  approverKey: string | undefined;
  /** LEASE_GATE_METRICS_KEY: reads `/metrics` and nothing else (a scraper's). */
  metricsKey: string | undefined;
}

/**
 * The kernel's keys from the environment, each refused (one line, never the key) when
 * it would not be the boundary it stands for: an admin or approver key that is the key
 * every job holds, or beyond loopback (the listen address or a --public-url) a key
 * short enough to guess. On loopback a short key still serves tests and the demo.
 */
export function kernelKeysOf(
  env: NodeJS.ProcessEnv,
  host: string,
  publicUrls: readonly URL[],
): KernelKeys {
  const key = env.LEASE_GATE_KERNEL_KEY || undefined;
  const adminKey = env.LEASE_GATE_ADMIN_KEY || undefined;
  if (adminKey !== undefined && adminKey === key)
    throw new UsageError(
      'LEASE_GATE_ADMIN_KEY is the kernel key every job holds, so every job could revoke, freeze and break glass: give the admin key a value of its own.',
    );
  const approverKey = approverKeyOf(env);
  const metricsKey = env.LEASE_GATE_METRICS_KEY || undefined;
  // A scraper's key sits in a Prometheus config: as the kernel key, it would lease too.
  if (metricsKey !== undefined && metricsKey === key)
    throw new UsageError(
      'LEASE_GATE_METRICS_KEY is the kernel key every job holds: give the metrics key a value of its own.',
    );
  const beyond = [host, ...publicUrls.map((url) => url.hostname)].find((h) => !isLoopbackHost(h));
  if (beyond !== undefined) {
    const given = {
      LEASE_GATE_KERNEL_KEY: key,
      LEASE_GATE_ADMIN_KEY: adminKey,
      LEASE_GATE_APPROVER_KEY: approverKey,
      LEASE_GATE_METRICS_KEY: metricsKey,
    };
    for (const [name, value] of Object.entries(given)) {
      if (value !== undefined && value.length < MIN_KEY_LENGTH)
        throw new UsageError(
          `${name} is shorter than ${MIN_KEY_LENGTH} characters, too easy to guess for a kernel reachable at ${beyond}: use a long random key (openssl rand -hex 32), or keep --host on loopback.`,
        );
    }
  }
  return { key, adminKey, approverKey, metricsKey };
}

/**
 * LEASE_GATE_APPROVER_KEY: a second operator's key. With it, a break-glass opened with the
 * admin key is used only once approved with this one, so one key cannot do both halves.
 */
function approverKeyOf(env: NodeJS.ProcessEnv): string | undefined {
  const approverKey = env.LEASE_GATE_APPROVER_KEY || undefined;
  if (approverKey === undefined) return undefined;
  if (!env.LEASE_GATE_ADMIN_KEY)
    throw new UsageError(
      'LEASE_GATE_APPROVER_KEY approves what the admin key opens: set LEASE_GATE_ADMIN_KEY too.',
    );
  if (approverKey === env.LEASE_GATE_ADMIN_KEY)
    throw new UsageError(
      'LEASE_GATE_APPROVER_KEY is the admin key: a second approver needs a key of its own.',
    );
  // Every job holds the kernel key; as the approver key it would let any job approve.
  if (approverKey === env.LEASE_GATE_KERNEL_KEY)
    throw new UsageError(
      'LEASE_GATE_APPROVER_KEY is the kernel key every job holds: a second approver needs a key of its own.',
    );
  return approverKey;
}
