/**
 * The lease's own routes: take one (held with `Prefer: wait=N`), watch it, give it back, read
 * it, and the operator's revoke. Bodies are checked here; the service and the rules decide.
 */
import * as z from 'zod/mini';
import '../../zod-en.js';
import {
  LEASE_PATH,
  RELEASE_PATH,
  RESOURCE_PATTERN,
  REVOKE_PATH,
  WATCH_PATH,
  isDid,
  didSchema as actorDid,
  resourceSchema as resource,
} from '../../plane/schema.js';
import type { Authorizer } from '../auth/authorize.js';
import { compareCaller } from '../auth/caller.js';
import type { Lever } from './admin.js';
import { ApiRefusal, parse, type AppRequest, type AppResponse, type Route } from './api.js';
import { operatorBy, operatorOf, reasonText } from './freeze-routes.js';
import { preferredWait, type HeldRequests } from '../service/held.js';
import { leaseExtensions, releaseOutdated } from '../service/lease-extensions.js';
import type { LeaseWatches, WatchAnswer } from '../service/watch.js';
import type { Promotions } from '../service/promotions.js';
import type { PlaneService } from '../service/plane-service.js';
import type { LeaseRecord } from '../rules/rules.js';

const leaseBody = z.object({ resource, actorDid });
const watchBody = z.object({
  resource,
  actorDid,
  leaseId: z.string().check(z.minLength(1), z.maxLength(256)),
});
const revokeBody = z.object({
  resource,
  reason: z._default(reasonText(), 'revoked by an operator'),
  by: operatorBy,
});

const NEVER_ABORTED = new AbortController().signal;
const REVOKING: Lever = { doing: 'Revoking', disabled: 'revoke_disabled' };
const ok = (body: unknown, status = 200): AppResponse => ({ status, body });

export interface LeaseRouteDeps {
  service: PlaneService;
  auth: Authorizer;
  held: HeldRequests;
  watches: LeaseWatches;
  promotions: Promotions | undefined;
  /** The one admin check (admin.ts), which revoke uses as every lever does. */
  requireAdmin: (req: AppRequest, lever?: Lever) => void;
}

/**
 * The lease and release body: a well-formed one is taken as it is (the hot
 * path); anything else goes through the schema, which names what is wrong.
 */
function leaseOf(body: unknown): { resource: string; actorDid: string } {
  if (typeof body === 'object' && body !== null) {
    const { resource: r, actorDid: a } = body as Record<string, unknown>;
    if (typeof r === 'string' && typeof a === 'string' && RESOURCE_PATTERN.test(r) && isDid(a))
      return { resource: r, actorDid: a };
  }
  return parse(leaseBody, body);
}

/** POST lease, watch, release and revoke; GET lease. */
export function leaseRoutes(deps: LeaseRouteDeps): Record<string, Route> {
  const { service, auth, held, watches, requireAdmin } = deps;
  return {
    [`POST ${LEASE_PATH}`]: leaseRoute(deps),
    [`POST ${WATCH_PATH}`]: async (req, principal) => {
      const { resource: r, actorDid: a, leaseId } = parse(watchBody, await req.json());
      auth.mayActAs(principal, { action: 'watch', resource: r, actorDid: a });
      const wait = preferredWait(req.headers.prefer);
      const signal = wait ? req.signal : NEVER_ABORTED;
      const answer = watchReply(await watches.watch(r, a, leaseId, wait, signal));
      if (held.stopping) answer.headers = { ...answer.headers, connection: 'close' };
      return answer;
    },
    [`POST ${RELEASE_PATH}`]: async (req, principal) => {
      const body = await req.json();
      const { resource: r, actorDid: a } = leaseOf(body);
      auth.mayActAs(principal, { action: 'release', resource: r, actorDid: a });
      const outdated = releaseOutdated(body);
      if (typeof outdated !== 'boolean')
        throw new ApiRefusal(outdated.error, { status: 400, reason: 'bad_request' });
      return ok(await service.release(r, a, outdated));
    },
    [`POST ${REVOKE_PATH}`]: async (req) => {
      requireAdmin(req, REVOKING);
      const { resource: r, reason, by } = parse(revokeBody, await req.json());
      // Only a named operator is recorded: an unnamed revoke's entry stays as it always was.
      const { lease } = await service.revoke(r, reason, by ? operatorOf(by) : undefined);
      return ok({
        ok: true,
        revoked: lease !== null,
        leaseId: lease?.id ?? null,
        holder: lease?.holder ?? null,
      });
    },
    [`GET ${LEASE_PATH}`]: async (req) => {
      const r = req.query.get('resource') ?? '';
      parse(z.object({ resource }), { resource: r });
      const { lease, frozen } = await service.statusOf(r);
      return ok({
        ok: true,
        lease: lease && publicLease(lease, undefined),
        // A frozen resource is not free: say who froze it, why and until when.
        ...(frozen
          ? { frozen: { by: frozen.by, reason: frozen.reason, until: frozen.untilMs } }
          : {}),
      });
    },
  };
}

/** POST lease: checked against the caller's identity and the promotion order, then asked (held). */
function leaseRoute({ service, auth, held, promotions }: LeaseRouteDeps): Route {
  return async (req, principal) => {
    const body = await req.json();
    const { resource: r, actorDid: a } = leaseOf(body);
    auth.mayActAs(principal, { action: 'lease', resource: r, actorDid: a });
    const extensions = leaseExtensions(body);
    if ('error' in extensions)
      throw new ApiRefusal(extensions.error, { status: 400, reason: 'bad_request' });
    // A token's run says what it deploys: a field it does not vouch for is refused here.
    const deploy = auth.deployOf(principal, extensions.deploy, promotions?.ordered(r));
    if (deploy) extensions.deploy = deploy;
    else delete extensions.deploy;
    const promotion = await promotions?.check(r, deploy, compareCaller(principal, a));
    if (promotion?.unpromoted !== undefined) extensions.unpromoted = promotion.unpromoted;
    if (promotion?.promotedVia !== undefined) extensions.promotedVia = promotion.promotedVia;
    if (principal.kind === 'oidc') extensions.issuer = principal.issuer.url;
    const wait = preferredWait(req.headers.prefer);
    // Only a held request listens for its client going away.
    const signal = wait ? req.signal : NEVER_ABORTED;
    const { reply, appliedWaitS } = await held.lease(r, a, wait, signal, extensions);
    const answer = reply.ok
      ? ok({
          ok: true,
          lease: publicLease(reply.lease, service.ttlMs),
          renewed: reply.renewed,
          ...(reply.previous ? { previous: reply.previous } : {}),
        })
      : ok(reply, 409);
    if (appliedWaitS !== undefined) {
      answer.headers = { 'preference-applied': `wait=${appliedWaitS}` };
      // Answered because the kernel is stopping: do not keep the connection for another.
      if (held.stopping) answer.headers.connection = 'close';
    }
    return answer;
  };
}

/** A watch's answer on the wire: still held, or how and when it ended. */
function watchReply(answer: WatchAnswer): AppResponse {
  if (answer.kind === 'not-yours') {
    throw new ApiRefusal(
      'Only the holder may watch a lease: actorDid must be the DID the lease was granted to.',
      { status: 403, reason: 'not_your_lease' },
    );
  }
  const headers =
    answer.appliedWaitS === undefined
      ? undefined
      : { 'preference-applied': `wait=${answer.appliedWaitS}` };
  const body =
    answer.kind === 'held'
      ? { ok: true, ended: false, lease: publicLease(answer.lease, undefined) }
      : {
          ok: true,
          ended: true,
          reason: answer.end?.reason ?? 'unknown',
          ...(answer.end ? { leaseId: answer.end.leaseId, endedAtMs: answer.end.endedAtMs } : {}),
          ...(answer.end?.message === undefined ? {} : { message: answer.end.message }),
          ...(answer.end?.by === undefined ? {} : { by: answer.end.by }),
          ...(answer.holder === undefined ? {} : { holder: answer.holder }),
        };
  return { status: 200, body, ...(headers ? { headers } : {}) };
}

/**
 * The lease as answered. `ttlMs` (the kernel's extension): how long this grant or renewal
 * runs from when the kernel decided it, so a keeper paces its renewals from the time it sent
 * the request, never from its own wall clock against `expiresAtMs`.
 */
function publicLease(lease: LeaseRecord, ttlMs: number | undefined) {
  const { id, resource: r, holder, expiresAtMs, fence, deploy } = lease;
  return {
    id,
    resource: r,
    holder,
    expiresAtMs,
    fence,
    ...(ttlMs === undefined ? {} : { ttlMs }),
    ...(deploy ? { deploy } : {}),
  };
}
