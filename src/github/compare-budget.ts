import type { Clock } from '../plane/time.js';
import { GitHubError } from './rest.js';

/**
 * How many calls the kernel's GitHub compare may make, so that no client can spend the
 * token's quota (GitHub allows a token 5,000 REST calls an hour; once they are spent every
 * descendant check fails closed, for everyone). Each call, a retry included, takes one
 * from the caller's bucket and one from the kernel's; an empty bucket refuses at once (the
 * deploy is refused `not_promoted`, saying when to try again) rather than waiting. Callers
 * are who the credential says: an OIDC token's repository, a scoped key's name, the DID
 * under the shared key. A caller's bucket is below the kernel's, so one caller spending
 * its own leaves the others theirs. At most `inFlight` calls are out at once.
 */

export interface CompareLimits {
  /** All callers together: at most `burst` calls at once, then `perHour`. */
  kernel: { burst: number; perHour: number };
  /** One caller: at most `burst` calls at once, then `perHour`. */
  caller: { burst: number; perHour: number };
  /** Calls out to GitHub at the same time; more wait their turn. */
  inFlight: number;
  /** Callers whose buckets are kept; the least recently used go first (a new one is full). */
  callers: number;
}

/**
 * The bounds (docs/promotion-order.md). At most 200 + 1,200 calls in the first hour and
 * 1,200 an hour after: a quarter of a 5,000/h token. A caller: 40 calls (two whole checks
 * of 20 commits), then one every 30 s.
 */
export const COMPARE_LIMITS: CompareLimits = {
  kernel: { burst: 200, perHour: 1_200 },
  caller: { burst: 40, perHour: 120 },
  inFlight: 4,
  callers: 10_000,
};

const HOUR_MS = 3_600_000;

/** A token bucket: `burst` tokens, refilled at `perHour`. */
class Bucket {
  private tokens: number;
  private at: number;
  constructor(
    private readonly limit: { burst: number; perHour: number },
    now: number,
  ) {
    this.tokens = limit.burst;
    this.at = now;
  }

  /** 0 when a token is there now, else the milliseconds until one is. */
  waitMs(now: number): number {
    this.tokens = Math.min(
      this.limit.burst,
      this.tokens + ((now - this.at) * this.limit.perHour) / HOUR_MS,
    );
    this.at = now;
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) * HOUR_MS) / this.limit.perHour;
  }

  take(): void {
    this.tokens -= 1;
  }
}

/** The budget was spent: not GitHub's answer, so nothing about the commit is kept. */
export class CompareBudgetSpent extends GitHubError {
  override name = 'CompareBudgetSpent';
}

export class CompareBudget {
  private readonly kernel: Bucket;
  private readonly callers = new Map<string, Bucket>();
  private out = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly clock: Clock,
    private readonly limits: CompareLimits = COMPARE_LIMITS,
  ) {
    this.kernel = new Bucket(limits.kernel, clock.now());
  }

  /**
   * Takes one call from `caller`'s budget and the kernel's, or throws naming the bound that
   * is spent and when the next call is there. Neither is taken unless both have one.
   */
  take(caller: string | undefined): void {
    const now = this.clock.now();
    const own = caller === undefined ? undefined : this.callerBucket(caller, now);
    const ownWait = own?.waitMs(now) ?? 0;
    if (ownWait > 0) throw this.spent(`for ${caller}`, this.limits.caller, ownWait);
    const kernelWait = this.kernel.waitMs(now);
    if (kernelWait > 0) throw this.spent('for all callers', this.limits.kernel, kernelWait);
    own?.take();
    this.kernel.take();
  }

  /** Runs `call` once fewer than `inFlight` calls are out, in the order they came. */
  async slot<T>(call: () => Promise<T>): Promise<T> {
    if (this.out >= this.limits.inFlight)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.out += 1;
    try {
      return await call();
    } finally {
      // The slot passes straight to the next waiter, so none is overtaken.
      const next = this.waiting.shift();
      if (next) next();
      else this.out -= 1;
    }
  }

  private callerBucket(caller: string, now: number): Bucket {
    let bucket = this.callers.get(caller);
    if (bucket) this.callers.delete(caller);
    else bucket = new Bucket(this.limits.caller, now);
    this.callers.set(caller, bucket);
    if (this.callers.size > this.limits.callers)
      this.callers.delete(this.callers.keys().next().value!);
    return bucket;
  }

  private spent(whose: string, limit: { burst: number; perHour: number }, waitMs: number) {
    const every = Math.round(HOUR_MS / limit.perHour / 1000);
    return new CompareBudgetSpent(
      `the kernel's GitHub compare budget ${whose} is spent (${limit.burst} calls, then one every ${every} s); try again in ${Math.ceil(waitMs / 1000)} s`,
      { status: 0 },
    );
  }
}
