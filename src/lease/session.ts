import { keepLease, type KeeperStatus, type KeepOptions } from '../gate/keep.js';
import { waitForLease, type HeldEvent, type WaitResult } from '../gate/wait.js';
import { createPlaneClient, type PlaneClient, type RetryEvent } from '../plane/client.js';
import type { Deploy, QueueMode } from '../plane/deploy.js';
import type { Lease } from '../plane/schema.js';
import { realSleep, systemClock, type Clock, type Sleep } from '../plane/time.js';
import { errorMessage } from '../errors.js';

/**
 * One lease session, the same for the action and the CLI:
 * `acquire() → Held { keep(), release() }`. It knows no runner and no
 * terminal; the faces turn its events into annotations or stderr lines.
 */

/** The one set of limits both faces use (they drifted when each had its own). */
export const LIMITS = {
  /** The longest job GitHub runs (5 days, self-hosted) plus an hour. */
  keeperMaxLifetimeMs: 5 * 24 * 3_600_000 + 3_600_000,
  /** How long a release is retried: a lease lasts 30 s anyway. */
  releaseBudgetMs: 10_000,
  /** How long main waits for the keeper's first status record. */
  keeperStartMs: 2_000,
  /** `run`: SIGTERM to the command's group, then SIGKILL after this. */
  terminateGraceMs: 10_000,
} as const;

export interface SessionOptions {
  apiUrl: string;
  key: string;
  /** A fresh Bearer token for each call (OIDC), used instead of `key`. */
  bearer?: (() => Promise<string>) | undefined;
  /** Where this face takes the key from, for a refusal's message. */
  keyHint?: string | undefined;
  resource: string;
  actorDid: string;
  /** What this session deploys, sent with lease requests (plane/deploy.ts). */
  deploy?: Deploy | undefined;
  /** `newest`: step aside when a newer run of the same lane waits. */
  queue?: QueueMode | undefined;
  clock?: Clock;
  sleep?: Sleep;
  random?: () => number;
  wallNow?: () => number;
  env?: NodeJS.ProcessEnv;
  requestTimeoutMs?: number;
  /** Told before each retry of a transient failure. */
  onRetry?: (event: RetryEvent) => void;
  /** Ask the plane to hold lease requests (RFC 7240); on by default. */
  blocking?: boolean;
  /** A client to use instead of one made here (tests, benchmarks). */
  client?: PlaneClient;
}

/** How a grant was timed: our send time (monotonic) and the plane's Date header. */
interface GrantTiming {
  sentAtMs?: number | undefined;
  planeDateMs?: number | undefined;
}

export type ReleaseOutcome =
  | { kind: 'released'; ids: string[] }
  | { kind: 'nothing'; ids: string[] }
  | { kind: 'failed'; message: string };

export interface Held {
  lease: Lease;
  waitedMs: number;
  /** Renews until `signal`, a loss, or `stillWanted`/`parentAlive` say stop. */
  keep(options: KeepControls): Promise<KeeperStatus>;
  /** Gives the lease back by (resource, own DID); never throws. `outdated`: it did not deploy. */
  release(options?: { outdated?: boolean }): Promise<ReleaseOutcome>;
}

export interface KeepControls {
  signal?: AbortSignal;
  parentAlive?: () => boolean;
  stillWanted?: () => boolean;
  onChange?: (status: KeeperStatus) => void;
  lease?: Lease;
  /** Renewals only, no watch (main's few seconds of renewing until the keeper takes over). */
  noWatch?: boolean;
}

export type Acquired =
  | { outcome: 'granted'; held: Held; waitedMs: number; previous?: Deploy; takenUp?: true }
  | Exclude<WaitResult, { outcome: 'granted' }>;

export interface Session {
  readonly client: PlaneClient;
  acquire(options: {
    timeoutMs: number;
    signal?: AbortSignal;
    /** How long transient failures are retried at least (30 s unless said). */
    retryWindowMs?: number;
    onHeld?: (event: HeldEvent) => void | Promise<void>;
    /** Holders whose lease this session takes up (see gate/wait.ts `takeUp`). */
    takeUp?: (holder: string) => boolean;
  }): Promise<Acquired>;
  /** A lease this session already holds (a keeper's, post's). */
  held(lease: Lease, waitedMs?: number): Held;
  /** Release by (resource, own DID): only this agent's lease can be released. */
  releaseOwn(): Promise<ReleaseOutcome>;
  close(): Promise<void>;
}

export function openSession(options: SessionOptions): Session {
  const clock = options.clock ?? systemClock;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const wallNow = options.wallNow ?? Date.now;
  const client = options.client ?? sessionClient(options, { clock, sleep, random, wallNow });
  let request = { resource: options.resource, actorDid: options.actorDid };
  // A held request must be answered before the client's own timeout fires.
  const maxHoldSeconds =
    options.blocking === false ? 0 : Math.max(0, Math.floor(client.requestTimeoutMs / 1_000) - 2);
  const keeping: Keeping = { client, clock, sleep, wallNow, maxHoldSeconds };

  async function releaseOwn(how: { outdated?: boolean } = {}): Promise<ReleaseOutcome> {
    try {
      const answer = await client.release(how.outdated ? { ...request, outdated: true } : request, {
        retryUntilMs: clock.now() + LIMITS.releaseBudgetMs,
      });
      return { kind: answer.released ? 'released' : 'nothing', ids: answer.releasedIds };
    } catch (error) {
      return { kind: 'failed', message: errorMessage(error) };
    }
  }

  function held(lease: Lease, waitedMs = 0, grant: GrantTiming = {}): Held {
    return {
      lease,
      waitedMs,
      keep: (controls) =>
        keepLease(keepOptions(keeping, () => request, { lease, grant }, controls)),
      release: releaseOwn,
    };
  }

  return {
    client,
    async acquire({ timeoutMs, signal, onHeld, retryWindowMs, takeUp }) {
      // When the request that was granted was sent (the lease's time runs from no earlier),
      // and the plane's clock in its answer (the keeper reads the lease time by it).
      let grant: GrantTiming = {};
      const result = await waitForLease({
        client: timedClient(client, clock, (timing) => {
          grant = timing;
        }),
        ...request,
        ...(options.deploy ? { deploy: options.deploy } : {}),
        ...(options.queue ? { queue: options.queue } : {}),
        timeoutMs,
        clock,
        sleep,
        random,
        signal,
        maxHoldSeconds,
        ...(retryWindowMs === undefined ? {} : { minRetryWindowMs: retryWindowMs }),
        ...(onHeld ? { onHeld } : {}),
        ...(takeUp ? { takeUp } : {}),
      });
      if (result.outcome !== 'granted') return result;
      // A lease taken up is kept and released as its holder from now on.
      if (result.takenUp) request = { resource: options.resource, actorDid: result.lease.holder };
      return {
        outcome: 'granted',
        held: held(result.lease, result.waitedMs, grant),
        waitedMs: result.waitedMs,
        ...(result.previous ? { previous: result.previous } : {}),
        ...(result.takenUp ? { takenUp: true as const } : {}),
      };
    },
    held,
    releaseOwn,
    close: () => client.close(),
  };
}

/** The plane client a session makes when it is given none, on the session's clocks. */
function sessionClient(
  options: SessionOptions,
  time: { clock: Clock; sleep: Sleep; random: () => number; wallNow: () => number },
): PlaneClient {
  return createPlaneClient({
    apiUrl: options.apiUrl,
    key: options.key,
    bearer: options.bearer,
    keyHint: options.keyHint,
    ...time,
    ...(options.env ? { env: options.env } : {}),
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  });
}

/** The client as the wait sees it, telling `onGrant` when a granted request was sent. */
function timedClient(
  client: PlaneClient,
  clock: Clock,
  onGrant: (timing: GrantTiming) => void,
): Pick<PlaneClient, 'lease' | 'release'> {
  return {
    lease: async (...args) => {
      const sent = clock.now();
      const answer = await client.lease(...args);
      if (answer.kind === 'granted') onGrant({ sentAtMs: sent, planeDateMs: answer.planeDateMs });
      return answer;
    },
    release: (...args) => client.release(...args),
  };
}

/** What a session's keeper runs on. */
interface Keeping {
  client: PlaneClient;
  clock: Clock;
  sleep: Sleep;
  wallNow: () => number;
  /** 0: the plane is not asked to hold, so no watch either. */
  maxHoldSeconds: number;
}

function keepOptions(
  keeping: Keeping,
  /** The session's request as it is now (a lease taken up changes it). */
  request: () => { resource: string; actorDid: string },
  granted: { lease: Lease; grant: GrantTiming },
  controls: KeepControls,
): KeepOptions {
  const { client, maxHoldSeconds } = keeping;
  return {
    client,
    ...request(),
    lease: controls.lease ?? granted.lease,
    // A lease handed in by the caller came from a request we did not time.
    ...(controls.lease ? {} : granted.grant),
    clock: keeping.clock,
    wallNow: keeping.wallNow,
    sleep: keeping.sleep,
    signal: controls.signal,
    maxLifetimeMs: LIMITS.keeperMaxLifetimeMs,
    ...(controls.parentAlive ? { parentAlive: controls.parentAlive } : {}),
    ...(controls.stillWanted ? { stillWanted: controls.stillWanted } : {}),
    ...(controls.onChange ? { onChange: controls.onChange } : {}),
    // A blocking watch alongside the renewals, so a revoke is known at once.
    ...(maxHoldSeconds > 0 && !controls.noWatch
      ? {
          watch: (leaseId: string, signal: AbortSignal) =>
            client.watch({ ...request(), leaseId }, { signal, waitSeconds: maxHoldSeconds }),
        }
      : {}),
  };
}
