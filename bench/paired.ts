import { cpus, loadavg } from 'node:os';
import { median, round } from './stats.js';
import { CLIENTS, measure } from './throughput.js';
import { startKernel, startRole } from './spawn.js';

/**
 * `npm run bench -- paired [rounds]`: only the kernel (memory) against the
 * node:http echo, alternated (echo, kernel, echo, kernel …) so that both see
 * the same load from whatever else runs on the machine, with the median of
 * the per-pair ratios. The full bench's ratio row is three such pairs;
 * `npm run bench -- paired N` prints N of them and writes no file: the quick
 * way to check the ≥ 0.8 target while changing the kernel (`npm run build` first).
 */
export async function pairedThroughput(rounds: number, log: (line: string) => void) {
  const echo: number[] = [];
  const kernel: number[] = [];
  const ratios: number[] = [];
  const before = loadavg()[0]!;
  for (let i = 0; i < rounds; i += 1) {
    const e = await measure('node:http JSON echo', await startRole('echo'));
    const k = await measure('kernel, memory store', await startKernel());
    echo.push(e.requestsPerSecond);
    kernel.push(k.requestsPerSecond);
    ratios.push(k.requestsPerSecond / e.requestsPerSecond);
    log(
      `pair ${i + 1}/${rounds}: echo ${Math.round(e.requestsPerSecond)} req/s, kernel ${Math.round(k.requestsPerSecond)} req/s, ${round(ratios.at(-1)!, 2)} ×`,
    );
  }
  const result = {
    clients: CLIENTS,
    rounds,
    echoMedian: round(median(echo), 0),
    kernelMedian: round(median(kernel), 0),
    ratioMedian: round(median(ratios), 3),
    machine: `${cpus().length} cores, Node ${process.version}, 1-minute load average ${round(before, 1)} before, ${round(loadavg()[0]!, 1)} after`,
    echo,
    kernel,
  };
  return result;
}
