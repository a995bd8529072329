import type { Freeze, LeaseRecord, ResourceState } from './rules.js';

export interface ResourceOverview {
  resource: string;
  lease: Omit<LeaseRecord, 'resource'> | null;
  reserved: { holder: string; untilMs: number } | null;
  queue: Array<{ actorDid: string; position: number }>;
  /** An operator's freeze, if any (recurring windows are listed beside, by the app). */
  frozen?: Freeze | undefined;
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
      .map((w, position) => ({ actorDid: w.actorDid, position }));
    const head = queue[0];
    const reserved =
      !lease && head && s.reservedUntilMs > now
        ? { holder: head.actorDid, untilMs: s.reservedUntilMs }
        : null;
    const frozen =
      s.frozen && (s.frozen.untilMs === null || s.frozen.untilMs > now) ? s.frozen : undefined;
    if (!lease && !reserved && queue.length === 0 && !frozen) continue;
    resources.push({
      resource: s.resource,
      lease: lease && {
        id: lease.id,
        holder: lease.holder,
        expiresAtMs: lease.expiresAtMs,
        fence: lease.fence,
        grantedAtMs: lease.grantedAtMs,
      },
      reserved,
      queue,
      ...(frozen ? { frozen } : {}),
    });
  }
  resources.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  return { nowMs: now, resources };
}
