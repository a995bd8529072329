import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpClient } from '../http/client.js';
import { createPlaneClient } from '../plane/client.js';
import { realSleep, systemClock, type Clock, type Sleep } from '../plane/time.js';
import type { AppConfig } from './config.js';
import { createGatekeeper } from './gatekeeper.js';
import { createGitHubApp, type GitHubAppOptions } from './github.js';
import { createReceiver } from './receiver.js';
import { findPendingRequests } from './recovery.js';
import { AppMetrics } from './metrics.js';

export interface AppOptions {
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  sleep?: Sleep;
  random?: () => number;
  wallNow?: () => number;
  /** GitHub retry budget and policy (tests shorten them). */
  github?: Pick<GitHubAppOptions, 'budgetMs' | 'retry'>;
}

export interface RunningApp {
  url: string;
  waiting(): number;
  close(): Promise<void>;
}

/** `lease-gate app`: the webhook receiver on the configured address, in front of the plane. */
export async function startApp(config: AppConfig, options: AppOptions): Promise<RunningApp> {
  const clock = options.clock ?? systemClock;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const wallNow = options.wallNow ?? Date.now;
  const env = options.env ?? process.env;
  const http = createHttpClient({ env });
  // Stopping ends every GitHub call and every wait between its retries at once: a
  // GitHub that does not answer must not hold a SIGTERM for its whole retry budget.
  const stopping = new AbortController();
  const plane = createPlaneClient({
    apiUrl: config.planeUrl,
    key: config.planeKey,
    keyHint: "plane.keyFile in the app's config",
    clock,
    sleep,
    random,
    env,
  });
  // Made before GitHub's client, which tells it each call; its gauge reads the gatekeeper's queue.
  let waiting = () => 0;
  const metrics = new AppMetrics(() => waiting());
  const metricsKey = env.LEASE_GATE_METRICS_KEY || undefined;
  const github = metrics.counted(
    createGitHubApp({
      appId: config.appId,
      privateKey: config.privateKey,
      apiUrl: config.githubApiUrl,
      http,
      clock,
      wallNow,
      sleep,
      random,
      ...options.github,
      signal: stopping.signal,
      onAttempt: (status) => metrics.called(status),
    }),
  );
  const gatekeeper = createGatekeeper({
    config,
    github,
    plane,
    log: options.log,
    clock,
    sleep,
    random,
    wallNow,
  });
  waiting = gatekeeper.waiting;
  const receive = createReceiver({
    secret: config.webhookSecret,
    path: config.path,
    log: options.log,
    onDelivery: gatekeeper.onDelivery,
  });
  const server = await listenOn(config, (req, res) => {
    if (metrics.serve(req, res, metricsKey)) return;
    receive(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  // Listening first, so nothing GitHub sends meanwhile fails; started before any request is
  // handled (a connection is an event, this a continuation), so a live delivery queues after
  // what a previous process left, and the "listening" line comes before the recovery's.
  void gatekeeper.recover(() => findPendingRequests({ github, wallNow, log: options.log }));
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}${config.path === '/' ? '' : config.path}`,
    waiting: gatekeeper.waiting,
    async close() {
      stopping.abort();
      server.close();
      server.closeAllConnections();
      await gatekeeper.close();
      await plane.close();
      await http.close();
    },
  };
}

/** The App's server on its configured address, with bounded header and request times. */
async function listenOn(config: AppConfig, handle: RequestListener): Promise<Server> {
  const server = createServer(handle);
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  return server;
}
