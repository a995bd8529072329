import { connect, type Socket } from 'node:net';
import { percentile } from './stats.js';

/**
 * A load generator in its own process (`role load`): raw keep-alive sockets,
 * requests serialised once, one request in flight per connection, the
 * smallest parse that finds the end of an answer. Much lighter than an HTTP
 * client, so on two cores the server rather than the generator sets the pace.
 */

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  preloaded: number;
  preloadSeconds: number;
}

const LEASE = '/api/v1/acp/coordination/lease';
const RELEASE = '/api/v1/acp/coordination/release';

function post(host: string, path: string, body: unknown, bearer = ''): Buffer {
  const text = JSON.stringify(body);
  const auth = bearer ? `Authorization: Bearer ${bearer}\r\n` : '';
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n${auth}` +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

/**
 * Sends `next()` until it returns undefined, one at a time; calls `answered`
 * with the status and the round trip of each. Resolves when the socket is done.
 */
function drive(
  socket: Socket,
  next: () => Buffer | undefined,
  answered: (status: number, ms: number, sentAt: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    const send = () => {
      const request = next();
      if (!request) {
        socket.end();
        return resolve();
      }
      sentAt = performance.now();
      socket.write(request);
    };
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      const headEnd = pending.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = pending.toString('latin1', 0, headEnd);
      const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (pending.length < headEnd + 4 + length) return;
      pending = pending.subarray(headEnd + 4 + length);
      answered(Number(head.slice(9, 12)), performance.now() - sentAt, sentAt);
      send();
    });
    socket.once('connect', send);
  });
}

/**
 * Optionally fills the plane with `preload` leases on distinct resources, then
 * has each of `connections` alternate lease and release on a resource of its
 * own for `seconds` after `warmupSeconds` (default 1) that are not counted.
 */
export async function load(options: {
  url: string;
  connections: number;
  seconds: number;
  preload: number;
  preloadLimitSeconds: number;
  warmupSeconds?: number;
  /** Sent on every request (a key or an OIDC token), with DIDs under `didPrefix`. */
  bearer?: string | undefined;
  didPrefix?: string | undefined;
}): Promise<LoadResult> {
  const { hostname, port, host } = new URL(options.url);
  const open = () => connect(Number(port), hostname).setNoDelay(true);

  let preloaded = 0;
  const preloadStarted = performance.now();
  const preloadDeadline = preloadStarted + options.preloadLimitSeconds * 1000;
  await Promise.all(
    Array.from({ length: options.preload ? options.connections : 0 }, (_, c) =>
      drive(
        open(),
        () => {
          const k = preloaded;
          if (k >= options.preload || performance.now() > preloadDeadline) return undefined;
          preloaded += 1;
          return post(host, LEASE, { resource: `lock:fill/${k}`, actorDid: `did:web:fill:c${c}` });
        },
        () => undefined,
      ),
    ),
  );
  const preloadSeconds = (performance.now() - preloadStarted) / 1000;
  const started = performance.now();
  const measureFrom = started + (options.warmupSeconds ?? 1) * 1000;
  const deadline = measureFrom + options.seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: options.connections }, (_, c) => {
      const actorDid = `${options.didPrefix ?? 'did:web:bench:'}c${c}`;
      const body = { resource: `lock:http/${c}`, actorDid };
      const pair = [
        post(host, LEASE, body, options.bearer),
        post(host, RELEASE, body, options.bearer),
      ];
      let n = 0;
      return drive(
        open(),
        () => (performance.now() < deadline ? pair[n++ % 2] : undefined),
        (status, ms, sentAt) => {
          if (sentAt < measureFrom) return;
          if (status !== 200) errors += 1;
          latencies.push(ms);
        },
      );
    }),
  );
  const seconds = options.seconds;
  return {
    requests: latencies.length,
    errors,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    preloaded,
    preloadSeconds,
  };
}
