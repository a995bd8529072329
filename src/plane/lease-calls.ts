import {
  brokenGrantError,
  checkAnswer,
  leaseBody,
  readLease,
  readStatus,
  readWatch,
} from './answers.js';
import { unheld, type Caller } from './caller.js';
import { RequestRejectedError } from './errors.js';
import {
  LEASE_PATH,
  RELEASE_PATH,
  WATCH_PATH,
  releaseAnswerSchema,
  type FreezeStatus,
  type Lease,
  type LeaseAnswer,
  type LeaseRequest,
  type ReleaseAnswer,
  type WatchAnswer,
} from './schema.js';
import type { CallOptions, RawAnswer } from './send.js';
import type { Clock } from './time.js';

/** A job's calls on its own lease: ask for it, give it back, look at it, watch it. */
export interface LeaseCalls {
  lease(req: LeaseRequest, options?: CallOptions): Promise<LeaseAnswer>;
  release(req: LeaseRequest, options?: CallOptions): Promise<ReleaseAnswer>;
  status(resource: string, options?: CallOptions): Promise<Lease | null>;
  /** The lease and, from the bundled kernel, the freeze in force (undefined from a plane that names none). */
  statusOf(
    resource: string,
    options?: CallOptions,
  ): Promise<{ lease: Lease | null; frozen: FreezeStatus | undefined }>;
  /**
   * One watch on our own lease, held by the plane up to `waitSeconds`: ended,
   * still held, or unsupported (a plane without the route). Not retried.
   */
  watch(req: LeaseRequest & { leaseId: string }, options?: CallOptions): Promise<WatchAnswer>;
}

/** A plane without the watch route: "no watch here", not an error. */
const NO_WATCH = new Set([404, 405]);
/** How long giving back a broken grant is retried. */
const GIVE_BACK_MS = 5_000;

/** `wallNow`: only to refuse a grant whose expiry is absurd, when the plane sends no Date. */
export function leaseCalls(caller: Caller, clock: Clock, wallNow: () => number): LeaseCalls {
  const { post, name } = caller;

  /** Release by (resource, own DID), bounded, never throwing: true when the plane answered it. */
  async function giveBack(req: LeaseRequest): Promise<boolean> {
    try {
      const payload = { resource: req.resource, actorDid: req.actorDid };
      const raw = await post(RELEASE_PATH, payload, { retryUntilMs: clock.now() + GIVE_BACK_MS });
      return releaseAnswerSchema.safeParse(raw.body).success;
    } catch {
      return false;
    }
  }

  const statusOf: LeaseCalls['statusOf'] = async (resource, call = {}) => {
    const path = `${LEASE_PATH}?resource=${encodeURIComponent(resource)}`;
    const raw = await caller.get(path, unheld(call));
    return readStatus(raw, name('GET', path));
  };

  return {
    async lease(req, call = {}) {
      const raw = await post(LEASE_PATH, leaseBody(req), call);
      const where = name('POST', LEASE_PATH);
      const read = readLease(raw, req, where, wallNow);
      if ('answer' in read) return read.answer;
      // A broken plane: whatever it granted is given back by (resource, own DID), never believed.
      throw brokenGrantError(where, raw, read.broken, await giveBack(req));
    },

    async release(req, call = {}) {
      const payload: Record<string, unknown> = { resource: req.resource, actorDid: req.actorDid };
      if (req.outdated) payload.outdated = true;
      const raw = await post(RELEASE_PATH, payload, unheld(call));
      const answer = checkAnswer(releaseAnswerSchema, raw, name('POST', RELEASE_PATH));
      return { released: answer.releasedIds.length > 0, releasedIds: answer.releasedIds };
    },

    async status(resource, call = {}) {
      return (await statusOf(resource, call)).lease;
    },

    statusOf,

    async watch(req, call = {}) {
      const payload = { resource: req.resource, actorDid: req.actorDid, leaseId: req.leaseId };
      let raw: RawAnswer;
      try {
        raw = await caller.once('POST', WATCH_PATH, payload, call);
      } catch (error) {
        if (error instanceof RequestRejectedError && NO_WATCH.has(error.status ?? 0))
          return { kind: 'unsupported' };
        throw error;
      }
      return readWatch(raw, name('POST', WATCH_PATH));
    },
  };
}
