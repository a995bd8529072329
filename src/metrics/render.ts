/**
 * A registry's text for one scrape: Prometheus's text format, or OpenMetrics when the
 * scraper's Accept header asks for it (Prometheus itself does, by default).
 */
import { Registry, type OpenMetricsContentType } from 'prom-client';

/** A metric's name as prom-client keeps it (and renames, see MetricsRenderer). */
interface Named {
  name: string;
}

export interface Rendered {
  contentType: string;
  text: string;
}

/** Whether an Accept header prefers OpenMetrics (any q above 0). */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (type !== 'application/openmetrics-text') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Renders `registry` in either format. prom-client renames a counter in place when it
 * writes OpenMetrics (`x_total` → `x`) and the next Prometheus-format scrape would lose the
 * suffix: each render here runs alone and puts the names back.
 */
export class MetricsRenderer {
  private readonly open = new Registry<OpenMetricsContentType>();
  private readonly shared = new WeakSet<Named>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly registry: Registry) {
    this.open.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  }

  /** `begin` runs first, once the renders before this one are done (a scrape's fresh look). */
  render(accept: string | undefined, begin?: () => void): Promise<Rendered> {
    const next = this.queue.then(() => {
      begin?.();
      return this.renderNow(wantsOpenMetrics(accept));
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async renderNow(openMetrics: boolean): Promise<Rendered> {
    if (!openMetrics) {
      return { contentType: this.registry.contentType, text: await this.registry.metrics() };
    }
    const metrics = this.registry.getMetricsAsArray() as unknown as Named[];
    const names = metrics.map((m) => m.name);
    for (const metric of metrics) {
      if (this.shared.has(metric)) continue;
      this.open.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
      this.shared.add(metric);
    }
    try {
      return { contentType: this.open.contentType, text: await this.open.metrics() };
    } finally {
      metrics.forEach((m, i) => (m.name = names[i] ?? m.name));
    }
  }
}
