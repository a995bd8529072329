import type { LeaseExtensions } from './lease-extensions.js';
import type { LeaseReply } from '../rules/rules.js';
import { HeldCalls, type HoldOptions } from './holding.js';
import type { PlaneService } from './plane-service.js';

// The caps and timers are holding.ts's (shared with watches); held requests' callers name them here.
export { MAX_HELD_REQUESTS, MAX_HELD_WAIT_S, type Timers } from './holding.js';
export type HeldOptions = HoldOptions;

export interface HeldAnswer {
  reply: LeaseReply;
  /** The wait applied (seconds, after the cap), for `Preference-Applied`; absent when not held. */
  appliedWaitS?: number;
}

/**
 * `wait=N` from RFC 7240 `Prefer` header(s) (node joins repeated ones with
 * ", "); the first `wait` counts. Undefined when absent or not delta-seconds:
 * a preference the server does not understand is ignored, never an error.
 */
export function preferredWait(header: string | undefined): number | undefined {
  if (!header) return undefined;
  for (const preference of header.split(',')) {
    const [token = '', ...rest] = (preference.split(';')[0] ?? '').split('=');
    if (token.trim().toLowerCase() !== 'wait') continue;
    const value = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1');
    return /^\d{1,10}$/.test(value) ? Number(value) : undefined;
  }
  return undefined;
}

interface Hold {
  /** Asks again now (a wake); a wake during an ask asks once more after it. */
  wake(): void;
}

/**
 * Lease requests held open until they can be granted (blocking acquire).
 * A held request is an ordinary waiter in the rules' queue: it asked once and
 * was refused, so it has its place, and the rules keep a freed resource for
 * the head of the queue. A frozen resource's waiters are held too: they keep
 * their place through the freeze, and its end wakes them. It asks again, in-process,
 * when the service says the resource changed (release, lapse, revoke, unfreeze, from
 * any store) and whenever its
 * told wait runs out, which keeps its place from lapsing while it is held.
 * Its answer is the service's, so a grant is answered only once it is durable.
 */
export class HeldRequests extends HeldCalls {
  private readonly byResource = new Map<string, Set<Hold>>();
  /**
   * Wake-ups per resource while first asks on it are out: one that comes after
   * the ask decided and before its hold is registered makes the hold ask again
   * at once, rather than at its told wait.
   */
  private readonly asking = new Map<string, { asks: number; wakes: number }>();

  constructor(service: PlaneService, options: HeldOptions = {}) {
    super(service, options);
    const changed = service.onResourceChanged((resource) => this.wake(resource));
    // Asked in the release's own batch: the head of the queue held here is granted in its commit.
    const releasing = service.onReleasing?.((resource) => this.wakeFirst(resource));
    this.unsubscribe = () => {
      changed();
      releasing?.();
    };
  }

  /**
   * Asks for the lease; with a preferred wait of N ≥ 1 seconds (and room),
   * holds the request until it is granted, refused for good, or min(N, cap)
   * seconds pass, then answers with the last reply.
   */
  async lease(
    resource: string,
    actorDid: string,
    preferredS: number | undefined,
    signal: AbortSignal,
    extensions: LeaseExtensions = {},
  ): Promise<HeldAnswer> {
    if (!this.mayHold(preferredS)) {
      return { reply: await this.firstAsk(resource, actorDid, extensions) };
    }
    const appliedWaitS = this.appliedWait(preferredS);
    this.count += 1;
    try {
      const deadline = this.service.now() + appliedWaitS * 1_000;
      // Before the first ask: another replica's release after it wakes this request.
      await this.service.listen(resource);
      const asking = this.asking.get(resource) ?? { asks: 0, wakes: 0 };
      this.asking.set(resource, asking);
      asking.asks += 1;
      const wakes = asking.wakes;
      let holding: Promise<LeaseReply>;
      try {
        const reply = await this.firstAsk(resource, actorDid, extensions);
        if (!mayWait(reply)) return { reply, appliedWaitS };
        if (signal.aborted) {
          await this.service.leave(resource, actorDid);
          return { reply, appliedWaitS };
        }
        // Registered before this returns, so from here on a wake reaches the hold itself.
        const woken = asking.wakes !== wakes;
        holding = this.hold(resource, actorDid, reply, deadline, signal, extensions, woken);
      } finally {
        asking.asks -= 1;
        if (asking.asks === 0) this.asking.delete(resource);
      }
      return { reply: await holding, appliedWaitS };
    } finally {
      this.count -= 1;
    }
  }

  /** Every held request asks afresh and answers with that (the kernel is stopping). */
  protected answerAll(): void {
    for (const holds of this.byResource.values()) for (const hold of holds) hold.wake();
  }

  private hold(
    resource: string,
    actorDid: string,
    first: Waiting,
    deadline: number,
    signal: AbortSignal,
    extensions: LeaseExtensions,
    /** A wake came while the first ask was out: ask again at once. */
    woken: boolean,
  ): Promise<LeaseReply> {
    return new Promise<LeaseReply>((resolve, reject) => {
      let last: LeaseReply = first;
      let timer: unknown;
      let asking = false;
      let again = false;
      let done = false;

      const finish = (settle: () => void) => {
        if (done) return;
        done = true;
        this.timers.clear(timer);
        signal.removeEventListener('abort', gone);
        const holds = this.byResource.get(resource);
        holds?.delete(hold);
        if (holds?.size === 0) this.byResource.delete(resource);
        settle();
      };
      const arm = (reply: Waiting) => {
        const left = deadline - this.service.now();
        timer = this.timers.set(ask, Math.max(0, Math.min(reply.stampede.waitMs, left)));
      };
      const ask = () => {
        if (done) return;
        if (asking) {
          again = true;
          return;
        }
        asking = true;
        this.timers.clear(timer);
        this.service.lease(resource, actorDid, extensions).then(
          (reply) => {
            asking = false;
            last = reply;
            if (done) return;
            const over = this.closing || this.service.now() >= deadline;
            if (!mayWait(reply) || over) return finish(() => resolve(reply));
            if (again) {
              again = false;
              return ask();
            }
            arm(reply);
          },
          (error: unknown) => {
            asking = false;
            finish(() => reject(error instanceof Error ? error : new Error(String(error))));
          },
        );
      };
      const gone = () =>
        finish(() => {
          resolve(last);
          // Its place goes to the next in line at once; a failed leave lapses with the place.
          this.service.leave(resource, actorDid).catch(() => undefined);
        });
      const hold: Hold = { wake: ask };

      let holds = this.byResource.get(resource);
      if (!holds) this.byResource.set(resource, (holds = new Set()));
      holds.add(hold);
      signal.addEventListener('abort', gone, { once: true });
      if (woken) ask();
      else arm(first);
    });
  }

  /**
   * A run that names its lane may have superseded waiters held here or on
   * another replica (deploy-order.ts), which no durable event announces: they
   * ask again now. Only a first ask wakes them, so their asks wake nobody.
   */
  private async firstAsk(resource: string, actorDid: string, extensions: LeaseExtensions) {
    const reply = await this.service.lease(resource, actorDid, extensions);
    if (extensions.deploy?.runNumber !== undefined) {
      // Its own wake: with replicas it comes back through the change feed, and this
      // request's hold then asks once more at once (a wake is never told by whom).
      if (this.service.wakeEverywhere) await this.service.wakeEverywhere(resource);
      else this.wakeHolds(resource);
    }
    return reply;
  }

  /** The resource may be free: its held requests ask again, and so do those whose first ask is out, once held. */
  private wake(resource: string): void {
    const asking = this.asking.get(resource);
    if (asking) asking.wakes += 1;
    this.wakeHolds(resource);
  }

  /**
   * The request held longest on this resource asks now, in the batch of the release that
   * is being submitted: the likeliest head of the queue here. Only that one: a request
   * whose ask is refused asks again when the release is durable (its wake), and so do all
   * the others, as before, so a release costs at most one ask more than it did.
   */
  private wakeFirst(resource: string): void {
    const first = this.byResource.get(resource)?.values().next().value;
    first?.wake();
  }

  /** Every request held on this resource asks again, in arrival order. */
  private wakeHolds(resource: string): void {
    const holds = this.byResource.get(resource);
    if (holds) for (const hold of [...holds]) hold.wake();
  }
}

/** A refusal that waiting can end: held by another, or frozen (waiters keep their place). */
type Waiting = Extract<LeaseReply, { reason: 'lease_held' | 'frozen' }>;

const mayWait = (reply: LeaseReply): reply is Waiting =>
  !reply.ok && (reply.reason === 'lease_held' || reply.reason === 'frozen');
