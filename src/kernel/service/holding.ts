import type { PlaneService } from './plane-service.js';

/**
 * What held lease requests (held.ts) and watches (watch.ts) share: both keep a request open
 * until something changes or its wait runs out, within the same caps, on the same timers, and
 * both answer every held request at once when the kernel stops. One base, so the caps and the
 * stopping rule cannot drift apart between the two.
 */

/**
 * The longest a request is held, whatever it prefers: below the 30 s that
 * many clients and proxies give one request, so a held answer is not cut off.
 */
export const MAX_HELD_WAIT_S = 25;
/** Past this many requests held at once, a request that prefers to wait is answered at once. */
export const MAX_HELD_REQUESTS = 1_000;

export interface Timers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface HoldOptions {
  maxWaitS?: number | undefined;
  maxHeld?: number | undefined;
  timers?: Timers | undefined;
}

export abstract class HeldCalls {
  protected readonly maxWaitS: number;
  protected readonly maxHeld: number;
  protected readonly timers: Timers;
  protected count = 0;
  protected closing = false;
  /** The subclass's subscription to the service's changes, ended by `close`. */
  protected unsubscribe: () => void = () => undefined;

  constructor(
    protected readonly service: PlaneService,
    options: HoldOptions = {},
  ) {
    this.maxWaitS = options.maxWaitS ?? MAX_HELD_WAIT_S;
    this.maxHeld = options.maxHeld ?? MAX_HELD_REQUESTS;
    this.timers = options.timers ?? realTimers;
  }

  /** True once `close` was called: answers should close their connections. */
  get stopping(): boolean {
    return this.closing;
  }

  /** How many requests are held (or admitted to be) right now. */
  get size(): number {
    return this.count;
  }

  /** Answers every held request at once (the kernel is stopping). */
  close(): void {
    this.closing = true;
    this.unsubscribe();
    this.answerAll();
  }

  /**
   * Whether a request preferring to wait `preferredS` seconds may be held: it asked for
   * a second or more, there is room under the cap, and the kernel is not stopping.
   */
  protected mayHold(preferredS: number | undefined): preferredS is number {
    return Boolean(preferredS && preferredS >= 1 && this.count < this.maxHeld && !this.closing);
  }

  /** The wait applied to a held request: what it prefers, within the cap. */
  protected appliedWait(preferredS: number): number {
    return Math.min(preferredS, this.maxWaitS);
  }

  /** Wakes every held request so it answers now. */
  protected abstract answerAll(): void;
}
