/**
 * What the kernel's metrics read at each scrape rather than count as it goes: levels
 * (waiters, leases held, freezes, held requests, the ledger, readiness) and the counts other
 * parts keep themselves (notifications, OIDC key fetches, PostgreSQL round trips). Nothing
 * here runs on the hot path; one look at the service serves every gauge of a scrape.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { oidcKeyFetches } from '../auth/oidc-keys.js';
import { storeRoundTrips } from '../store/round-trips.js';
import type { Overview } from '../rules/overview.js';
import type { PlaneService } from '../service/plane-service.js';

export interface ScrapeSources {
  service: PlaneService;
  /** Blocking acquires held open now (`Prefer: wait=N`). */
  held?: { readonly size: number } | undefined;
  /** The app's extra health lines (the notifier's `notifications`). */
  health?: (() => Record<string, unknown>) | undefined;
}

/** What the gauges report into (KernelMetrics, metrics.ts): its registry, its labels, its clock. */
export interface ScrapeTarget {
  readonly registry: Registry;
  readonly resources: { labelOf(resource: string): string };
  /** Wall time the ledger was last seen to grow; set here. */
  lastChangeMs: number;
}

/** What one scrape saw of the service: taken once, read by every gauge of the scrape. */
interface Look {
  overview: Overview | undefined;
  ready: boolean;
  ledgerSize: number;
}

/**
 * Registers the gauges read at a scrape. Returns what forgets the last look: called as each
 * scrape begins, so the gauges of one scrape share one look and no scrape reads an old one.
 */
export function scrapeGauges(metrics: ScrapeTarget, sources: ScrapeSources): () => void {
  const { service } = sources;
  const registers = [metrics.registry];
  let taken: Promise<Look> | undefined;
  const look = () => (taken ??= lookAt(service));
  let ledgerSize = -1;
  const perResource = (
    name: string,
    help: string,
    value: (r: Overview['resources'][0]) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['resource'] as const,
      registers,
      async collect() {
        this.reset();
        for (const r of (await look()).overview?.resources ?? [])
          this.inc({ resource: metrics.resources.labelOf(r.resource) }, value(r));
      },
    });
  perResource('lease_gate_waiters', 'Waiters in the queue, per resource.', (r) => r.queue.length);
  perResource('lease_gate_leases_held', 'Live leases (1 while a resource is held).', (r) =>
    r.lease ? 1 : 0,
  );
  perResource('lease_gate_frozen', 'Resources under an operator’s freeze.', (r) =>
    r.frozen ? 1 : 0,
  );
  leaseAgeSeries(registers, metrics, look);
  new Gauge({
    name: 'lease_gate_held_requests',
    help: 'Blocking acquires (Prefer: wait=N) held open now.',
    registers,
    collect() {
      this.set(sources.held?.size ?? 0);
    },
  });
  new Gauge({
    name: 'lease_gate_ledger_entries',
    help: 'Entries in the ledger (the size its checkpoint covers).',
    registers,
    async collect() {
      const { ledgerSize: size } = await look();
      if (size !== ledgerSize) metrics.lastChangeMs = Date.now();
      ledgerSize = size;
      this.set(size);
    },
  });
  new Gauge({
    name: 'lease_gate_checkpoint_age_seconds',
    help: 'Seconds since the ledger (and so its checkpoint) last grew, as this process saw.',
    registers,
    async collect() {
      await look();
      this.set(Math.max(0, Date.now() - metrics.lastChangeMs) / 1000);
    },
  });
  new Gauge({
    name: 'lease_gate_ready',
    help: '1 when the kernel’s store takes writes (/readyz answers 200), else 0.',
    registers,
    async collect() {
      this.set((await look()).ready ? 1 : 0);
    },
  });
  notificationSeries(registers, sources.health);
  healthCheckSeries(registers, sources.health);
  processCounts(registers);
  return () => (taken = undefined);
}

async function lookAt(service: PlaneService): Promise<Look> {
  const ready = await service.ready().then(
    () => true,
    () => false,
  );
  // A store that is down has no overview to give; the gauges then show none.
  const overview = ready ? await service.overview().catch(() => undefined) : undefined;
  if (ready) await service.syncLedger().catch(() => undefined);
  return { overview, ready, ledgerSize: service.ledger.size };
}

/** A count kept elsewhere, shown as a counter (it only grows). */
function countFrom(registers: Registry[], name: string, help: string, read: () => number) {
  return new Counter({
    name,
    help,
    registers,
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** The notifier's counts, as `/readyz` tells them to the operator. */
function notificationSeries(
  registers: Registry[],
  health: (() => Record<string, unknown>) | undefined,
): void {
  const field = (name: string) => () => {
    const told = health?.().notifications as Record<string, unknown> | undefined;
    const value = told?.[name];
    return typeof value === 'number' ? value : 0;
  };
  countFrom(
    registers,
    'lease_gate_notifications_delivered_total',
    'Notifications a URL received.',
    field('delivered'),
  );
  countFrom(
    registers,
    'lease_gate_notifications_failed_total',
    'Notifications given up after their retries.',
    field('failed'),
  );
  countFrom(
    registers,
    'lease_gate_notifications_dropped_total',
    'Notifications never queued (their URL too far behind).',
    field('dropped'),
  );
  new Gauge({
    name: 'lease_gate_notifications_pending',
    help: 'Notifications queued and not yet delivered (the notifier’s lag, in notifications).',
    registers,
    collect() {
      this.set(field('pending')());
    },
  });
}

/** How long each live lease has been held, at the scrape (the longest, for resource="other"). */
function leaseAgeSeries(
  registers: Registry[],
  metrics: ScrapeTarget,
  look: () => Promise<Look>,
): void {
  new Gauge({
    name: 'lease_gate_lease_age_seconds',
    help: 'How long the live lease has been held (the longest, for resource="other").',
    labelNames: ['resource'] as const,
    registers,
    async collect() {
      this.reset();
      const { overview } = await look();
      const nowMs = overview?.nowMs ?? 0;
      const ages = new Map<string, number>();
      for (const { resource, lease } of overview?.resources ?? []) {
        if (!lease) continue;
        const label = metrics.resources.labelOf(resource);
        const age = Math.max(0, nowMs - lease.grantedAtMs) / 1000;
        ages.set(label, Math.max(age, ages.get(label) ?? 0));
      }
      for (const [resource, age] of ages) this.set({ resource }, age);
    },
  });
}

/** Each `--health-check` as `/readyz` tells it: 1 healthy, 0 failing, none before its first poll. */
function healthCheckSeries(
  registers: Registry[],
  health: (() => Record<string, unknown>) | undefined,
): void {
  new Gauge({
    name: 'lease_gate_health_check_healthy',
    help: 'A resource’s --health-check: 1 while its URL answers healthy, 0 while it fails.',
    labelNames: ['resource'] as const,
    registers,
    collect() {
      this.reset();
      const checks = health?.().healthChecks;
      if (!Array.isArray(checks)) return;
      for (const check of checks as Array<{ resource?: unknown; healthy?: unknown }>) {
        if (typeof check.resource === 'string' && typeof check.healthy === 'boolean')
          this.set({ resource: check.resource }, check.healthy ? 1 : 0);
      }
    },
  });
}

/** Counts the auth and PostgreSQL modules keep for the whole process. */
function processCounts(registers: Registry[]): void {
  countFrom(
    registers,
    'lease_gate_oidc_key_fetches_total',
    'Fetches of an OIDC issuer’s keys.',
    () => oidcKeyFetches.attempts,
  );
  countFrom(
    registers,
    'lease_gate_oidc_key_fetch_failures_total',
    'Fetches of an OIDC issuer’s keys that failed.',
    () => oidcKeyFetches.failures,
  );
  countFrom(
    registers,
    'lease_gate_postgres_round_trips_total',
    'Queries sent to PostgreSQL (each one round trip).',
    () => storeRoundTrips.count,
  );
}
