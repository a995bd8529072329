import type { Clock, Sleep } from '../../src/plane/time.js';

/** A clock that moves only when the code under test sleeps. */
export function fakeTime(start = 1_000): { clock: Clock; sleep: Sleep; sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    clock: { now: () => now },
    sleeps,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      if (signal?.aborted) return;
      now += ms;
    },
  };
}
