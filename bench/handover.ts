import { waitForLease } from '../src/gate/wait.js';
import { createPlaneClient, type PlaneClient } from '../src/plane/client.js';
import { realSleep, systemClock } from '../src/plane/time.js';
import { BENCH_PREFER_WAIT_S, countPrefer, newPreferLog, type PreferLog } from './prefer.js';

/**
 * How agents wait for a held lease. `blocking` and `waitMs` are the real gate
 * (waitForLease + the plane client) against the kernel, asking with and without
 * `Prefer: wait`; `poll` asks at a fixed interval whatever the plane says, with
 * a random phase as jobs that start at unrelated times have; `ttl-only` is the
 * gate against a lock that only says when the holder's lease runs out.
 */
export type Mode =
  | { kind: 'blocking'; url: string }
  | { kind: 'waitMs'; url: string }
  | { kind: 'poll'; url: string; intervalMs: number }
  | { kind: 'ttl-only'; url: string };

export interface Asker {
  /** Resolves true once granted, false when `signal` stopped the wait. */
  acquire(signal?: AbortSignal): Promise<boolean>;
  release(): Promise<void>;
}

interface Hooks {
  /** Before every lease request this agent sends while it does not hold the lease. */
  asking(): void;
  /** The moment a grant's answer arrived. */
  granted(atMs: number): void;
}

const WAIT_LIMIT_MS = 120_000;

/** One agent of a mode; `preferLog` collects what the plane said to `Prefer: wait`. */
export function makeAsker(
  mode: Mode,
  resource: string,
  actorDid: string,
  hooks: Hooks,
  prefer?: { log: PreferLog },
): Asker {
  const inner = createPlaneClient({ apiUrl: mode.url });
  const request = { resource, actorDid };
  const client: Pick<PlaneClient, 'lease' | 'release'> = {
    lease: async (req, call) => {
      hooks.asking();
      const answer = await inner.lease(req, call);
      if (prefer) countPrefer(prefer.log, answer);
      if (answer.kind === 'granted') hooks.granted(performance.now());
      return answer;
    },
    release: (req, call) => inner.release(req, call),
  };
  const release = async () => void (await inner.release(request));

  if (mode.kind === 'poll') {
    return {
      release,
      async acquire(signal) {
        const deadline = performance.now() + WAIT_LIMIT_MS;
        for (let first = true; performance.now() < deadline; first = false) {
          if (signal?.aborted) break;
          const answer = await client.lease(request, { signal }).catch((error: unknown) => {
            if (signal?.aborted) return undefined;
            throw error;
          });
          if (answer?.kind === 'granted') return true;
          if (answer?.kind === 'refused') throw new Error(`refused: ${answer.reason}`);
          // The first sleep sets a random phase; then a fixed interval.
          await realSleep(first ? Math.random() * mode.intervalMs : mode.intervalMs, signal);
        }
        if (!signal?.aborted) throw new Error(`${actorDid}: no grant in ${WAIT_LIMIT_MS} ms`);
        await release().catch(() => undefined);
        return false;
      },
    };
  }
  return {
    release,
    async acquire(signal) {
      const result = await waitForLease({
        client,
        ...request,
        timeoutMs: WAIT_LIMIT_MS,
        clock: systemClock,
        sleep: realSleep,
        random: Math.random,
        signal,
        maxHoldSeconds: mode.kind === 'blocking' ? BENCH_PREFER_WAIT_S : 0,
      });
      if (result.outcome === 'timeout') throw new Error(`${actorDid}: no grant in time`);
      return result.outcome === 'granted';
    },
  };
}

/** One Prefer log per gate mode, so it covers the whole row. */
export function preferFor(mode: Mode): { log: PreferLog } | undefined {
  if (mode.kind === 'blocking' || mode.kind === 'waitMs') return { log: newPreferLog() };
  return undefined;
}

export interface HandoverRun {
  /** release sent → next waiter's grant received, only when someone was waiting. */
  samplesMs: number[];
  seconds: number;
}

/**
 * `lanes` resources in parallel; on each, `waves` bursts of `agents` jobs that
 * all ask at once (within 50 ms), hold for 20–100 ms and release. A handover
 * is counted only when the release found a live waiter: the first grant of a
 * wave and the last release of a wave are not handovers.
 */
export async function handover(
  mode: Mode,
  options: { lanes: number; waves: number; agents: number; tag: string; arrivalJitterMs?: number },
  prefer = preferFor(mode),
): Promise<HandoverRun> {
  const jitter = options.arrivalJitterMs ?? 50;
  const samplesMs: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.lanes }, async (_, lane) => {
      const resource = `lock:bench/${options.tag}/${lane}`;
      for (let wave = 0; wave < options.waves; wave += 1) {
        const waiting = new Set<number>();
        let releasedAt: number | undefined;
        await Promise.all(
          Array.from({ length: options.agents }, async (_, i) => {
            const asker = makeAsker(
              mode,
              resource,
              `did:web:bench:${options.tag}:l${lane}a${i}`,
              {
                asking: () => waiting.add(i),
                granted: (at) => {
                  waiting.delete(i);
                  if (releasedAt !== undefined) samplesMs.push(at - releasedAt);
                  releasedAt = undefined;
                },
              },
              prefer,
            );
            await realSleep(Math.random() * jitter);
            if (!(await asker.acquire())) throw new Error('handover: a wait stopped');
            await realSleep(20 + Math.random() * 80);
            if (waiting.size > 0) releasedAt = performance.now();
            await asker.release();
          }),
        );
      }
    }),
  );
  return { samplesMs, seconds: (performance.now() - started) / 1000 };
}

/**
 * Plane load while waiting: one holder keeps the lease (renewing every 1.5 s)
 * while `waiters` wait for `seconds`; every lease request they send counts,
 * the first included. Then the waits are cancelled and the holder releases.
 */
export async function loadWhileWaiting(
  mode: Mode,
  options: { waiters: number; seconds: number; tag: string },
  prefer = preferFor(mode),
): Promise<{ requestsPerWaiterPerSecond: number; requests: number }> {
  const resource = `lock:bench/${options.tag}/load`;
  const noHooks = { asking: () => undefined, granted: () => undefined };
  const holder = makeAsker(mode, resource, `did:web:bench:${options.tag}:holder`, noHooks, prefer);
  if (!(await holder.acquire())) throw new Error('load: the holder got no lease');
  const stop = new AbortController();
  const renewals = (async () => {
    while (!stop.signal.aborted) {
      await realSleep(1_500, stop.signal);
      if (!stop.signal.aborted) await holder.acquire();
    }
  })();
  let requests = 0;
  let counting = true;
  const waits = Array.from({ length: options.waiters }, async (_, i) => {
    const asker = makeAsker(
      mode,
      resource,
      `did:web:bench:${options.tag}:w${i}`,
      { asking: () => void (counting && (requests += 1)), granted: () => undefined },
      prefer,
    );
    await realSleep(Math.random() * 50);
    if (await asker.acquire(stop.signal)) await asker.release();
  });
  await realSleep(options.seconds * 1000);
  counting = false;
  stop.abort();
  await Promise.all([...waits, renewals]);
  await holder.release();
  return {
    requests,
    requestsPerWaiterPerSecond: requests / (options.waiters * options.seconds),
  };
}
