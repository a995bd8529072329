import {
  granted,
  held,
  isLease,
  isRelease,
  released,
  startScriptedPlane,
} from './scripted-plane.js';

/** A lease as this plane decided it, on the test's (the runner's) clock. */
interface Decided {
  holder: string;
  id: string;
  untilMs: number;
}

/**
 * The hosted plane's contract on loopback (CONTRACT.md part 1): no `ttlMs`, no watch route
 * (404), leases of `leaseMs`, the holder's ask renews (same id), and `expiresAtMs` and the
 * Date header on a clock `skewMs` off the runner's. It decides on the runner's clock and
 * records every lapse, so a test can tell whether the lease ever ran out under the keeper.
 */
export async function startHostedPlane(options: { leaseMs: number; skewMs: number }) {
  let lease: Decided | undefined;
  let next = 1;
  const lapses: Decided[] = [];
  const grants: Decided[] = [];
  /** When each lease request came (runner's clock), to tell a late renewal from a lapse. */
  const asks: number[] = [];
  const planeDate = (now: number) => new Date(now + options.skewMs).toUTCString();
  const plane = await startScriptedPlane((req) => {
    const now = Date.now();
    const headers = { date: planeDate(now) };
    const actor = (req.body as { actorDid?: string } | undefined)?.actorDid ?? '';
    if (lease && now >= lease.untilMs) {
      lapses.push(lease);
      lease = undefined;
    }
    if (isRelease(req)) {
      if (lease?.holder !== actor) return { headers, body: released() };
      const id = lease.id;
      lease = undefined;
      return { headers, body: released(id) };
    }
    if (!isLease(req)) return { status: 404, headers, body: { ok: false, reason: 'not_found' } };
    asks.push(now);
    if (lease && lease.holder !== actor) {
      return { status: 409, headers, body: held(lease.holder, lease.untilMs - now) };
    }
    if (lease) lease.untilMs = now + options.leaseMs;
    else {
      lease = { holder: actor, id: `lease_${next++}`, untilMs: now + options.leaseMs };
      grants.push({ ...lease });
    }
    const body = granted(actor, lease.id, { expiresAtMs: lease.untilMs + options.skewMs });
    return { headers, body };
  });
  return {
    ...plane,
    lapses,
    grants,
    asks,
    /** An operator takes the lease away and gives it to `to`. */
    takeAway(to: string): void {
      lease = { holder: to, id: `lease_${next++}`, untilMs: Date.now() + 60_000 };
    },
  };
}
