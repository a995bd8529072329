import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { max, median, percentile, round } from './stats.js';
import { CLIENTS } from './throughput.js';
import type { LoadResult } from './loadgen.js';
import { runRole, startKernel, type Spawned } from './spawn.js';

/** Short rounds, many of them: the machine's other work drifts less within a pair. */
const SECONDS = 3;

/**
 * Notifications: the kernel (memory store) under the throughput load with and
 * without `--notify` to a receiver on loopback, in `rounds` pairs of short runs,
 * each pair's order swapped from the last (off-on, on-off, …) so a drift of the
 * machine's load falls on both sides alike. The ratio is the median of the
 * per-pair ratios, with their spread. Kernel, load generator and receiver are
 * three processes; the receiver answers 204 at once and reads each body's times
 * only after. Beside the throughput, the kernel's own CPU time per request (from
 * /proc, Linux), of the whole process and of its main thread alone (the one that
 * answers; notifications are made and sent on a worker thread): what notifications
 * cost the kernel, whatever else the two cores run. Delivery latency: the receiver's time minus each notification's `atMs`
 * (the kernel's epoch-aligned clock at the decision, same host), a batch's one by one.
 */
export async function notifyBench(rounds: number, log: (line: string) => void) {
  const dir = '.tmp/bench-notify';
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const secretFile = `${dir}/secret`;
  writeFileSync(secretFile, 'bench-notify-secret-0123456789');
  const receiver = await startReceiver();
  const args = ['--notify', receiver.url, '--notify-secret-file', secretFile];
  const off: Run[] = [];
  const on: Run[] = [];
  const ratios: number[] = [];
  const before = loadavg()[0]!;
  try {
    for (let i = 0; i < rounds; i += 1) {
      const order = i % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      const pair: Record<string, Run> = {};
      for (const side of order)
        pair[side] = await run(await startKernel(side === 'on' ? args : []));
      off.push(pair.off!);
      on.push(pair.on!);
      ratios.push(pair.on!.requestsPerSecond / pair.off!.requestsPerSecond);
      log(
        `  pair ${i + 1}/${rounds} (${order.join(', ')}): off ${Math.round(pair.off!.requestsPerSecond)}, on ${Math.round(pair.on!.requestsPerSecond)} req/s, ${round(ratios.at(-1)!, 2)} ×`,
      );
    }
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const rps = (runs: Run[]) => median(runs.map((r) => r.requestsPerSecond));
  const cpu = (
    runs: Run[],
    key: 'cpuUsPerRequest' | 'threadCpuUsPerRequest' = 'cpuUsPerRequest',
  ) => {
    const known = runs.flatMap((r) => (r[key] === undefined ? [] : [r[key]]));
    return known.length ? median(known) : undefined;
  };
  const offCpu = cpu(off);
  const onCpu = cpu(on);
  const offThread = cpu(off, 'threadCpuUsPerRequest');
  const onThread = cpu(on, 'threadCpuUsPerRequest');
  const sorted = [...ratios].sort((a, b) => a - b);
  return {
    clients: CLIENTS,
    pairs: rounds,
    secondsEach: SECONDS,
    offRequestsPerSecond: rps(off),
    onRequestsPerSecond: rps(on),
    /** The median of the per-pair ratios (on / off). */
    ratio: median(ratios),
    ratioSpread: {
      min: sorted[0],
      p25: percentile(sorted, 25),
      p75: percentile(sorted, 75),
      max: max(sorted),
    },
    ratios: ratios.map((r) => round(r, 3)),
    /** The kernel's CPU (user + system) per answered request, median of the runs. */
    kernelCpuUsPerRequest: { off: offCpu, on: onCpu },
    /** off / on CPU per request: the throughput ratio a kernel bound by its own core would show. */
    cpuRatio: offCpu !== undefined && onCpu !== undefined ? offCpu / onCpu : undefined,
    /** The same, of the thread that answers (notifications are made and sent on another). */
    threadCpuUsPerRequest: { off: offThread, on: onThread },
    threadCpuRatio:
      offThread !== undefined && onThread !== undefined ? offThread / onThread : undefined,
    requests: receiver.received,
    delivered: receiver.notifications,
    p50Ms: percentile(receiver.latencies, 50),
    p99Ms: percentile(receiver.latencies, 99),
    machine: `1-minute load average ${round(before, 1)} before, ${round(loadavg()[0]!, 1)} after`,
  };
}

interface Run {
  requestsPerSecond: number;
  /** The kernel process's CPU (all its threads) per answered request. */
  cpuUsPerRequest: number | undefined;
  /** Its main thread's alone: the one that answers requests. */
  threadCpuUsPerRequest: number | undefined;
}

/** The load generator (its own process) against one kernel, and the kernel's CPU meanwhile. */
async function run(kernel: Spawned): Promise<Run> {
  try {
    const cpuBefore = cpuMs(kernel.pid);
    const threadBefore = cpuMs(kernel.pid, kernel.pid);
    // Measured: the run's seconds after its 1 s warm-up; the CPU counts both, so per request of the whole.
    const result = await runRole<LoadResult>(
      'load',
      [kernel.url, CLIENTS, SECONDS, 0, 30].map(String),
      60_000,
    );
    const cpuAfter = cpuMs(kernel.pid);
    const threadAfter = cpuMs(kernel.pid, kernel.pid);
    const all = result.requestsPerSecond * (SECONDS + 1);
    const perRequest = (before: number | undefined, after: number | undefined) =>
      before !== undefined && after !== undefined && all > 0
        ? ((after - before) * 1000) / all
        : undefined;
    return {
      requestsPerSecond: result.requestsPerSecond,
      cpuUsPerRequest: perRequest(cpuBefore, cpuAfter),
      threadCpuUsPerRequest: perRequest(threadBefore, threadAfter),
    };
  } finally {
    await kernel.stop();
  }
}

/** A process's (or one of its threads') user + system CPU so far, from /proc (undefined elsewhere). */
function cpuMs(pid: number, thread?: number): number | undefined {
  try {
    const stat = readFileSync(
      thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`,
      'utf8',
    );
    // Fields after the command name (which may hold spaces): utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `"atMs":` followed by its number: each notification has one, a batch none of its own, and a
 * string value cannot hold it unescaped.
 */
const AT_MS = /"atMs":(\d+)/g;

/**
 * The receiver: answers 204 as soon as a body has arrived, then reads its notifications'
 * times. It stands in for a webhook on another host, so it does as little as it can on the
 * kernel's two cores: it scans each body for the times (every notification's) rather than
 * parsing it whole, which cost it 2.7 µs of CPU a notification (/proc), a quarter of what
 * notifications cost the kernel's process.
 */
async function startReceiver() {
  const latencies: number[] = [];
  const state = { received: 0, notifications: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      res.writeHead(204).end();
      state.received += 1;
      // A batch carries several notifications: each one's latency counts.
      for (const [, atMs] of Buffer.concat(chunks).toString('latin1').matchAll(AT_MS)) {
        state.notifications += 1;
        if (latencies.length < 1_000_000) latencies.push(now - Number(atMs));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    latencies,
    get received() {
      return state.received;
    },
    get notifications() {
      return state.notifications;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
