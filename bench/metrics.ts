import { cpus, loadavg } from 'node:os';
import { request } from 'undici';
import type { CycleResult } from './cycles.js';
import { runRole, spawnServer } from './spawn.js';
import { median, round } from './stats.js';

/**
 * `npm run bench -- metrics [pairs]`: lock cycles per second on the memory kernel with its
 * metrics on (LEASE_GATE_METRICS_KEY set, scraped every second as a busy Prometheus would)
 * and off (no key: the kernel keeps none), in interleaved pairs (off, on, off, on …) so
 * both see the same load from whatever else runs on the machine; the median of the
 * per-pair ratios beside the goal (on ≥ 0.95× off).
 */

const KEY = 'bench-metrics-key-0123456789';
const SECONDS = Number(process.env.LEASE_GATE_BENCH_METRICS_SECONDS ?? 5);
const CLIENTS = 16;
/** One resource per client: every cycle is a grant and a release, no waiting between them. */
const RESOURCES = 16;

export const METRICS_GOAL = 0.95;

async function cyclesPerSecond(metrics: boolean): Promise<number> {
  const env = { ...process.env, LEASE_GATE_METRICS_KEY: metrics ? KEY : '' };
  const kernel = await spawnServer(
    ['dist/cli/index.js', 'kernel', '--port', '0', '--quiet', '--ttl-ms', '60000'],
    env,
  );
  let scraping = metrics;
  const scraper = (async () => {
    while (scraping) {
      const res = await request(`${kernel.url}/metrics`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}`);
      await res.body.dump();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  try {
    const result = await runRole<CycleResult>(
      'cycles',
      [
        JSON.stringify({
          plane: 'kernel',
          urls: [kernel.url],
          clients: CLIENTS,
          resources: RESOURCES,
          seconds: SECONDS,
          warmupSeconds: 1,
        }),
      ],
      (SECONDS + 60) * 1000,
    );
    if (result.errors) throw new Error(`${result.errors} failed cycles: ${result.firstError}`);
    return result.cyclesPerSecond;
  } finally {
    scraping = false;
    await scraper;
    await kernel.stop();
  }
}

export async function metricsCost(pairs: number, log: (line: string) => void) {
  const off: number[] = [];
  const on: number[] = [];
  const ratios: number[] = [];
  const before = loadavg()[0]!;
  for (let i = 0; i < pairs; i += 1) {
    // Alternate which goes first, so neither always meets a warmer or busier machine.
    const [a, b] = i % 2 === 0 ? [false, true] : [true, false];
    const first = await cyclesPerSecond(a);
    const second = await cyclesPerSecond(b);
    const [o, n] = a ? [second, first] : [first, second];
    off.push(o);
    on.push(n);
    ratios.push(n / o);
    log(
      `pair ${i + 1}/${pairs}: off ${Math.round(o)} cycles/s, on ${Math.round(n)} cycles/s, ${round(n / o, 3)} ×`,
    );
  }
  const ratio = round(median(ratios), 3);
  return {
    clients: CLIENTS,
    resources: RESOURCES,
    seconds: SECONDS,
    pairs,
    offMedian: round(median(off), 0),
    onMedian: round(median(on), 0),
    ratioMedian: ratio,
    goal: `on ≥ ${METRICS_GOAL}× off`,
    met: ratio >= METRICS_GOAL,
    machine: `${cpus().length} cores, Node ${process.version}, 1-minute load average ${round(before, 1)} before, ${round(loadavg()[0]!, 1)} after`,
    off,
    on,
  };
}
