import { setTimeout as delay } from 'node:timers/promises';

/** A monotonic clock in milliseconds; never compare it with a wall clock. */
export interface Clock {
  now(): number;
}

/** Resolves after `ms`, or early (without throwing) once `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const systemClock: Clock = { now: () => performance.now() };

export const realSleep: Sleep = async (ms, signal) => {
  if (signal?.aborted) return;
  try {
    await delay(Math.max(0, ms), undefined, signal ? { signal } : {});
  } catch {
    // Aborted: the caller looks at its signal.
  }
};
