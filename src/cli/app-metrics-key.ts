import { isLoopbackHost } from '../http/loopback.js';
import { MIN_KEY_LENGTH } from './kernel-keys.js';
import { UsageError } from './options.js';

/**
 * The App's LEASE_GATE_METRICS_KEY, refused (one line, never the key) as the kernel refuses
 * its own: the plane key the App leases with (it would sit in a Prometheus config), or, on an
 * App listening beyond loopback, a key short enough to guess.
 */
export function appMetricsKeyOf(
  env: NodeJS.ProcessEnv,
  host: string,
  planeKey: string,
): string | undefined {
  const metricsKey = env.LEASE_GATE_METRICS_KEY || undefined;
  if (metricsKey === undefined) return undefined;
  if (metricsKey === planeKey)
    throw new UsageError(
      'LEASE_GATE_METRICS_KEY is the plane key the App leases with: give the metrics key a value of its own.',
    );
  if (!isLoopbackHost(host) && metricsKey.length < MIN_KEY_LENGTH)
    throw new UsageError(
      `LEASE_GATE_METRICS_KEY is shorter than ${MIN_KEY_LENGTH} characters, too easy to guess for an App listening on ${host}: use a long random key (openssl rand -hex 32).`,
    );
  return metricsKey;
}
