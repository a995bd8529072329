/**
 * `GET /metrics`: the kernel's metrics for Prometheus, to the holder of the admin key or of
 * the metrics key (LEASE_GATE_METRICS_KEY, which reads metrics and nothing else), as the
 * Bearer token. Off (403) when the kernel has neither. Reached by address as the probes are
 * (a scraper names a pod by its IP), since the key, not the Host, is what guards it.
 */
import { ApiRefusal, type AppRequest, type Route } from './api.js';
import { bearerMatches } from './admin.js';
import type { KernelMetrics } from './metrics.js';

export const METRICS_ROUTE = 'GET /metrics';

export interface MetricsKeys {
  adminKey?: string | undefined;
  metricsKey?: string | undefined;
}

/** Throws 401 without a Bearer token, 403 with a wrong one or when metrics are off. */
export function requireMetricsReader(req: AppRequest, keys: MetricsKeys): void {
  const accepted = [keys.metricsKey, keys.adminKey].filter((k): k is string => Boolean(k));
  if (!accepted.length) {
    throw new ApiRefusal(
      'Metrics need the kernel to be started with LEASE_GATE_METRICS_KEY or LEASE_GATE_ADMIN_KEY.',
      { status: 403, reason: 'metrics_disabled' },
    );
  }
  const header = req.headers.authorization;
  if (!header?.startsWith('Bearer ')) {
    throw new ApiRefusal(
      'Metrics need the metrics key (LEASE_GATE_METRICS_KEY) or the admin key as the Bearer token.',
      { status: 401, reason: 'unauthorized' },
    );
  }
  // Every key is compared, so the time taken does not tell which one came close.
  const matched = accepted.map((key) => bearerMatches(header, key)).some(Boolean);
  if (!matched) {
    throw new ApiRefusal('This Bearer token is neither the metrics key nor the admin key.', {
      status: 403,
      reason: 'forbidden',
    });
  }
}

/** `metrics` undefined: the kernel keeps none (`metrics: false`, or nobody may read them). */
export function metricsRoutes(
  metrics: KernelMetrics | undefined,
  keys: MetricsKeys,
): Record<string, Route> {
  return {
    [METRICS_ROUTE]: async (req) => {
      requireMetricsReader(req, keys);
      if (!metrics)
        throw new ApiRefusal('This kernel was started with its metrics off.', {
          status: 403,
          reason: 'metrics_disabled',
        });
      const { contentType, text } = await metrics.render(req.headers.accept);
      return { status: 200, body: text, headers: { 'content-type': contentType } };
    },
  };
}
