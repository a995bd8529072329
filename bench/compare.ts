import { handover, loadWhileWaiting, preferFor, type Mode } from './handover.js';
import { blockingLabel } from './prefer.js';
import { startKernel, startRole } from './spawn.js';
import { max, percentile } from './stats.js';

/** One row of the side-by-side handover table. */
export interface WaitRow {
  mode: string;
  measured: boolean;
  samples: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  requestsPerWaiterPerSecond: number;
}

const AGENTS = 8;
const LOAD_WAITERS = 7;
const LOAD_SECONDS = 12;
const TTL_ONLY_MS = 5_000;
const POLL_TTL_MS = 30_000;

function row(mode: string, samples: number[], load: number): WaitRow {
  return {
    mode,
    measured: true,
    samples: samples.length,
    p50Ms: percentile(samples, 50),
    p95Ms: percentile(samples, 95),
    p99Ms: percentile(samples, 99),
    maxMs: max(samples),
    requestsPerWaiterPerSecond: load,
  };
}

/**
 * A fixed-interval poller that waits its turn: the next in line takes the
 * lock at its first poll after the release, and its phase is random, so the
 * handover is uniform on [0, T) plus a round trip: p50 = T/2, p99 = 0.99 T.
 */
export function pollModel(intervalMs: number): WaitRow {
  return {
    mode: `poll every ${intervalMs / 1000} s (model, not run)`,
    measured: false,
    samples: 0,
    p50Ms: intervalMs / 2,
    p95Ms: intervalMs * 0.95,
    p99Ms: intervalMs * 0.99,
    maxMs: intervalMs,
    requestsPerWaiterPerSecond: 1000 / intervalMs,
  };
}

/**
 * Every way of waiting, each plane in its own process: the kernel (the real
 * gate, with and without Prefer: wait), a first-in-first-out lock for the
 * pollers, and a TTL-only lock. Handovers run one mode at a time; the load
 * scenarios run side by side (they send a few requests a second in all).
 */
export async function compareWaiting(log: (line: string) => void) {
  const kernel = await startKernel();
  const fifo = await startRole('lock', [String(POLL_TTL_MS), 'fifo']);
  const ttlOnly = await startRole('lock', [String(TTL_ONLY_MS), 'plain']);
  try {
    const modes: [string, Mode, { lanes: number; waves: number }][] = [
      ['blocking', { kind: 'blocking', url: kernel.url }, { lanes: 6, waves: 6 }],
      ['waitMs', { kind: 'waitMs', url: kernel.url }, { lanes: 6, waves: 5 }],
      ['poll1', { kind: 'poll', url: fifo.url, intervalMs: 1_000 }, { lanes: 6, waves: 2 }],
      ['poll5', { kind: 'poll', url: fifo.url, intervalMs: 5_000 }, { lanes: 8, waves: 1 }],
      ['ttl', { kind: 'ttl-only', url: ttlOnly.url }, { lanes: 6, waves: 1 }],
    ];
    const prefer = new Map(modes.map(([tag, mode]) => [tag, preferFor(mode)]));
    const runs = new Map<string, number[]>();
    for (const [tag, mode, shape] of modes) {
      log(`handover: ${tag}, ${shape.lanes} resources × ${shape.waves} waves of ${AGENTS} …`);
      const run = await handover(mode, { ...shape, agents: AGENTS, tag }, prefer.get(tag));
      runs.set(tag, run.samplesMs);
    }
    log(`plane load: ${LOAD_WAITERS} waiters for ${LOAD_SECONDS} s, every mode side by side …`);
    const loads = await Promise.all(
      modes.map(([tag, mode]) =>
        loadWhileWaiting(
          mode,
          { waiters: LOAD_WAITERS, seconds: LOAD_SECONDS, tag: `${tag}-load` },
          prefer.get(tag),
        ),
      ),
    );
    const load = (i: number) => loads[i]!.requestsPerWaiterPerSecond;
    const blockingLog = prefer.get('blocking')!.log;
    const waitLog = prefer.get('waitMs')!.log;
    const rows = [
      row(blockingLabel(blockingLog), runs.get('blocking')!, load(0)),
      row('gate on waitMs alone (no Prefer: wait)', runs.get('waitMs')!, load(1)),
      row('poll every 1 s, first in first out', runs.get('poll1')!, load(2)),
      row('poll every 5 s, first in first out', runs.get('poll5')!, load(3)),
      pollModel(60_000),
      row(`TTL-only lock, ${TTL_ONLY_MS / 1000} s leases`, runs.get('ttl')!, load(4)),
    ];
    return {
      rows,
      blockingApplied: blockingLog.applied > 0,
      prefer: { blocking: blockingLog, waitMs: waitLog },
      raw: Object.fromEntries(runs),
      loads,
    };
  } finally {
    await Promise.all([kernel.stop(), fifo.stop(), ttlOnly.stop()]);
  }
}
