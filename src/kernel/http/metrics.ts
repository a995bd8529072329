/**
 * The kernel's Prometheus metrics: a prom-client registry fed by the service's observer
 * (service/observer.ts) on the hot path, and by a look at the service at each scrape for
 * what is a level rather than a count (waiters, leases held, the ledger, readiness).
 * Per-resource series are capped (metrics/bounded.ts); docs/metrics.md lists every metric.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { BoundedLabels, DEFAULT_RESOURCE_CAP } from '../../metrics/bounded.js';
import { MetricsRenderer, type Rendered } from '../../metrics/render.js';
import type { CommittedBatch, KernelObserver } from '../service/observer.js';
import type { Decision, KernelEvent } from '../rules/rules.js';
import { scrapeGauges, type ScrapeSources } from './metrics-scrape.js';

/** Deploys wait and hold for seconds to an hour or so. */
const DEPLOY_BUCKETS = [0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];
/** A handover (freed → next grant) is milliseconds to a few seconds. */
const HANDOVER_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** Waiters remembered per resource (for their wait time) beyond which new ones are not. */
const WAITERS_REMEMBERED = 1_000;

export interface KernelMetricsOptions {
  /** How many resources keep their own series (then `resource="other"`); 50 by default. */
  resourceCap?: number | undefined;
}

/** Every per-resource child, built once per resource label: the hot path builds no label. */
interface ResourceSeries {
  grants: Counter.Internal;
  renewals: Counter.Internal;
  releases: Counter.Internal;
  lapses: Counter.Internal;
  revokes: Counter.Internal;
  refusals: Map<string, Counter.Internal>;
  label: string;
  wait: Histogram.Internal<'resource'>;
  hold: Histogram.Internal<'resource'>;
  handover: Histogram.Internal<'resource'>;
}

interface StoreSeries {
  batchSize: Histogram.Internal<'store'>;
  commit: Histogram.Internal<'store'>;
  failures: Counter.Internal;
}

export class KernelMetrics implements KernelObserver {
  readonly registry = new Registry();
  readonly resources: BoundedLabels<ResourceSeries>;
  private readonly renderer = new MetricsRenderer(this.registry);
  private readonly stores: Record<'shared' | 'local', StoreSeries>;
  private readonly refusals: Counter<'resource' | 'reason'>;
  /** Since when each waiter asked (by resource, then DID): its wait, once granted. */
  private readonly waitingSince = new Map<string, Map<string, number>>();
  /** When each live lease was granted (here), and when a resource with waiters was freed. */
  private readonly grantedAt = new Map<string, number>();
  private readonly freedAt = new Map<string, number>();
  /** Wall time the ledger was last seen to grow (metrics-scrape.ts): the checkpoint's age. */
  lastChangeMs = Date.now();
  private forgetLook: () => void = () => undefined;

  constructor(options: KernelMetricsOptions = {}) {
    const registers = [this.registry];
    const counter = (name: string, help: string) =>
      new Counter({ name, help, labelNames: ['resource'] as const, registers });
    const histogram = (name: string, help: string, buckets: number[]) =>
      new Histogram({ name, help, labelNames: ['resource'] as const, buckets, registers });
    const grants = counter('lease_gate_grants_total', 'Leases granted.');
    const renewals = counter('lease_gate_renewals_total', 'Leases renewed by their holder.');
    const releases = counter('lease_gate_releases_total', 'Leases given back by their holder.');
    const lapses = counter('lease_gate_lapses_total', 'Leases that lapsed (not renewed).');
    const revokes = counter('lease_gate_revokes_total', 'Leases revoked by an operator.');
    this.refusals = new Counter({
      name: 'lease_gate_refusals_total',
      help: 'Requests the rules refused, by reason (lease_held counts each ask of a waiter).',
      labelNames: ['resource', 'reason'] as const,
      registers,
    });
    const wait = histogram(
      'lease_gate_wait_seconds',
      'From a waiter’s first ask to its grant (0 for a grant without a wait).',
      DEPLOY_BUCKETS,
    );
    const hold = histogram(
      'lease_gate_hold_seconds',
      'From a grant to its release, lapse or revoke.',
      DEPLOY_BUCKETS,
    );
    const handover = histogram(
      'lease_gate_handover_seconds',
      'From a lease’s end, with waiters, to the next grant on its resource.',
      HANDOVER_BUCKETS,
    );
    this.resources = new BoundedLabels(options.resourceCap ?? DEFAULT_RESOURCE_CAP, (label) => ({
      label,
      grants: grants.labels(label),
      renewals: renewals.labels(label),
      releases: releases.labels(label),
      lapses: lapses.labels(label),
      revokes: revokes.labels(label),
      refusals: new Map(),
      wait: wait.labels(label),
      hold: hold.labels(label),
      handover: handover.labels(label),
    }));
    this.stores = storeSeries(registers);
  }

  /** Adds the gauges read at each scrape (waiters, ledger, readiness, notifications). */
  scrapeFrom(sources: ScrapeSources): void {
    this.forgetLook = scrapeGauges(this, sources);
  }

  /** The text for one scrape, OpenMetrics when `accept` asks for it. */
  render(accept: string | undefined): Promise<Rendered> {
    return this.renderer.render(accept, () => this.forgetLook());
  }

  committed(batch: CommittedBatch): void {
    const store = this.stores[batch.shared ? 'shared' : 'local'];
    store.batchSize.observe(batch.size);
    store.commit.observe(batch.seconds);
    if (batch.failed) {
      store.failures.inc();
      return;
    }
    batch.decisions.forEach((decision, i) => {
      if (decision) this.decided(decision, batch.commands[i]);
    });
  }

  private decided(decision: Decision, command: CommittedBatch['commands'][number] | undefined) {
    const { state, reply, events } = decision;
    const series = this.resources.of(state.resource);
    // A lapse or a waiter leaving is decided with no reply (null): nothing refused.
    const refused = (reply ?? {}) as { ok?: boolean; reason?: string };
    if (refused.ok === false && refused.reason !== undefined) {
      this.refused(series, refused.reason);
      if (refused.reason === 'lease_held' && command?.kind === 'lease')
        this.waiting(decision, command.actorDid);
    }
    for (const event of events) this.event(series, event, state.queue.length > 0);
    if (state.queue.length === 0) this.waitingSince.delete(state.resource);
  }

  private refused(series: ResourceSeries, reason: string): void {
    let child = series.refusals.get(reason);
    if (!child) {
      child = this.refusals.labels(series.label, reason);
      series.refusals.set(reason, child);
    }
    child.inc();
  }

  /** Remembers when a refused waiter first asked (its place in the queue says). */
  private waiting({ state }: Decision, actorDid: string): void {
    let waiters = this.waitingSince.get(state.resource);
    if (waiters?.has(actorDid)) return;
    const since = state.queue.find((w) => w.actorDid === actorDid)?.sinceMs;
    if (since === undefined) return;
    if (!waiters) this.waitingSince.set(state.resource, (waiters = new Map<string, number>()));
    if (waiters.size < WAITERS_REMEMBERED) waiters.set(actorDid, since);
  }

  private event(series: ResourceSeries, event: KernelEvent, waiters: boolean): void {
    const { resource, atMs } = event;
    switch (event.kind) {
      case 'grant': {
        series.grants.inc();
        const since = this.waitingSince.get(resource)?.get(event.actorDid);
        this.waitingSince.get(resource)?.delete(event.actorDid);
        series.wait.observe(since === undefined ? 0 : Math.max(0, atMs - since) / 1000);
        const freed = this.freedAt.get(resource);
        if (freed !== undefined) series.handover.observe(Math.max(0, atMs - freed) / 1000);
        this.freedAt.delete(resource);
        this.grantedAt.set(resource, atMs);
        return;
      }
      case 'renew':
        series.renewals.inc();
        return;
      case 'release':
        series.releases.inc();
        return this.ended(series, event, waiters);
      case 'lapse':
        series.lapses.inc();
        return this.ended(series, event, waiters);
      case 'revoke':
        series.revokes.inc();
        return this.ended(series, event, waiters);
      // Freezes and break-glass passes are the ledger's and the console's, not counted here.
      case 'freeze':
      case 'unfreeze':
      case 'break_glass':
      case 'break_glass_withdrawn':
        return;
    }
  }

  private ended(series: ResourceSeries, { resource, atMs }: KernelEvent, waiters: boolean) {
    const granted = this.grantedAt.get(resource);
    if (granted !== undefined) series.hold.observe(Math.max(0, atMs - granted) / 1000);
    this.grantedAt.delete(resource);
    if (waiters) this.freedAt.set(resource, atMs);
    else this.freedAt.delete(resource);
  }
}

/** The store's series: batch size, commit latency and failed batches, shared or local. */
function storeSeries(registers: Registry[]): Record<'shared' | 'local', StoreSeries> {
  const labelNames = ['store'] as const;
  const batchSize = new Histogram({
    name: 'lease_gate_store_batch_size',
    help: 'Commands per batch committed to the store (PostgreSQL when store="postgres").',
    labelNames,
    buckets: BATCH_BUCKETS,
    registers,
  });
  const commit = new Histogram({
    name: 'lease_gate_store_commit_seconds',
    help: 'How long a batch took to decide and make durable.',
    labelNames,
    buckets: COMMIT_BUCKETS,
    registers,
  });
  const failures = new Counter({
    name: 'lease_gate_store_commit_failures_total',
    help: 'Batches the store refused as a whole.',
    labelNames,
    registers,
  });
  const of = (store: string) => ({
    batchSize: batchSize.labels(store),
    commit: commit.labels(store),
    failures: failures.labels(store),
  });
  return { shared: of('postgres'), local: of('local') };
}
