import type { Deploy } from '../../plane/deploy.js';
import { etaMs, type Freeze, type LeaseRecord, type ResourceState } from './rules.js';
import type { BreakGlass } from './state.js';

export interface ResourceOverview {
  resource: string;
  lease: Omit<LeaseRecord, 'resource'> | null;
  reserved: { holder: string; untilMs: number } | null;
  /**
   * Each waiter's place (0: next) and, when its request named it, what it deploys (its run).
   * `sinceMs`, when it first asked (the kernel's clock), and `etaMs`, about how long until it
   * is granted at recent hold times (as its own refusal says), go out only on `?detail=1`.
   */
  queue: Array<{
    actorDid: string;
    position: number;
    deploy?: Deploy;
    sinceMs?: number;
    etaMs?: number;
  }>;
  /** An operator's freeze, if any (recurring windows are listed beside, by the app). */
  frozen?: Freeze | undefined;
  /** An operator's break-glass not used yet (open, or waiting for its approval). */
  breakGlass?: BreakGlass | undefined;
}

export interface Overview {
  nowMs: number;
  resources: ResourceOverview[];
}

/** Every resource with a live lease, a reservation or waiters, as seen at `now`. */
export function overviewOf(states: Iterable<ResourceState>, now: number): Overview {
  const resources: ResourceOverview[] = [];
  for (const s of states) {
    const lease = s.lease && s.lease.expiresAtMs > now ? s.lease : null;
    const queue = s.queue
      .filter((w) => w.keepUntil >= now)
      .map((w, position) => {
        const eta = etaMs(s, position, now);
        return {
          actorDid: w.actorDid,
          position,
          ...(w.deploy ? { deploy: w.deploy } : {}),
          ...(w.sinceMs === undefined ? {} : { sinceMs: w.sinceMs }),
          ...(eta === undefined ? {} : { etaMs: eta }),
        };
      });
    const head = queue[0];
    const reserved =
      !lease && head && s.reservedUntilMs > now
        ? { holder: head.actorDid, untilMs: s.reservedUntilMs }
        : null;
    const frozen =
      s.frozen && (s.frozen.untilMs === null || s.frozen.untilMs > now) ? s.frozen : undefined;
    const breakGlass = s.breakGlass && s.breakGlass.untilMs > now ? s.breakGlass : undefined;
    if (!lease && !reserved && queue.length === 0 && !frozen && !breakGlass) continue;
    resources.push({
      resource: s.resource,
      lease: lease && {
        id: lease.id,
        holder: lease.holder,
        expiresAtMs: lease.expiresAtMs,
        fence: lease.fence,
        grantedAtMs: lease.grantedAtMs,
        ...(lease.deploy ? { deploy: lease.deploy } : {}),
      },
      reserved,
      queue,
      ...(frozen ? { frozen } : {}),
      ...(breakGlass ? { breakGlass } : {}),
    });
  }
  resources.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  return { nowMs: now, resources };
}

/** Resources per page of the overview when the caller names no limit, and at most. */
export const OVERVIEW_PAGE = { default: 1_000, max: 5_000 } as const;

export interface OverviewPage extends Overview {
  /** The `after` of the next page, or null on the last one. */
  next: string | null;
}

/**
 * One page of the overview, in resource order: the resources after `after`
 * (exclusive), at most `limit`. A page ends on a name, so a resource taken or
 * freed between pages moves nothing else in or out of the next one.
 */
export function overviewPage(
  overview: Overview,
  after: string | undefined,
  limit: number,
): OverviewPage {
  const all = overview.resources;
  let start = 0;
  if (after !== undefined) {
    // Sorted by resource: the first name past `after`, by binary search.
    let high = all.length;
    while (start < high) {
      const mid = (start + high) >> 1;
      if (all[mid]!.resource <= after) start = mid + 1;
      else high = mid;
    }
  }
  const resources = all.slice(start, start + limit);
  const more = start + limit < all.length;
  return { nowMs: overview.nowMs, resources, next: more ? resources.at(-1)!.resource : null };
}

/**
 * The page as a plain `GET` shows it: without the waiters' `sinceMs` and `etaMs`, which only
 * `?detail=1` (the console, `lease-gate status`) asks for, so the answer's shape stays what it was.
 */
export function withoutDetail(resources: ResourceOverview[]): ResourceOverview[] {
  return resources.map((r) =>
    r.queue.some((w) => w.sinceMs !== undefined || w.etaMs !== undefined)
      ? { ...r, queue: r.queue.map(({ sinceMs: _since, etaMs: _eta, ...w }) => w) }
      : r,
  );
}
