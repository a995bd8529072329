import { createHash, timingSafeEqual } from 'node:crypto';
import * as z from 'zod/mini';
import '../../zod-en.js';
import {
  APPROVE_BREAK_GLASS_PATH,
  BREAK_GLASS_PATH,
  WITHDRAW_BREAK_GLASS_PATH,
  DID_FORM,
  FREEZE_PATH,
  KERNEL_RESOURCES_PATH,
  LEASE_PATH,
  RELEASE_PATH,
  RESOURCE_FORM,
  RESOURCE_PATTERN,
  REVOKE_PATH,
  UNFREEZE_PATH,
  WATCH_PATH,
  isDid,
} from '../../plane/schema.js';
import { createAuthorizer, type Authorizer, type Principal } from '../auth/authorize.js';
import { compareCaller } from '../auth/caller.js';
import { AuthRefusal } from '../auth/refusal.js';
import { ApiRefusal, parse, type AppRequest, type AppResponse } from './api.js';
import { breakGlassRoutes, type Approver } from './break-glass-routes.js';
import { anyOf } from '../auth/glob.js';
import { freezeRoutes, operatorBy, operatorOf, reasonText } from './freeze-routes.js';
import { HeldRequests, preferredWait } from '../service/held.js';
import { leaseExtensions, releaseOutdated } from '../service/lease-extensions.js';
import { ledgerRoutes } from './ledger-routes.js';
import { LeaseWatches, type WatchAnswer } from '../service/watch.js';
import { KernelNames } from './names.js';
import { Promotions } from '../service/promotions.js';
import { OVERVIEW_PAGE, overviewPage, withoutDetail } from '../rules/overview.js';
import { StoreUnavailableError } from '../service/service.js';
import type { PlaneService } from '../service/plane-service.js';
import type { LeaseRecord } from '../rules/rules.js';
import type { FreezeWindows } from '../service/windows.js';
import { causeText } from '../../errors.js';
import type { GitHubCompare } from '../../github/compare.js';

export type App = ((req: AppRequest) => Promise<AppResponse>) & {
  serves(path: string): boolean;
  /** The names it answers to (`Host`) and the origins it calls its own. */
  readonly names: KernelNames;
  /** Answers held requests at once (before the server closes). */
  close(): void;
};

export interface AppOptions {
  service: PlaneService;
  /** Every call must carry this Bearer key when set. */
  key?: string | undefined;
  /** The only key that may revoke; revoking is off without one. */
  adminKey?: string | undefined;
  /** A second operator's key: when set, a break-glass is used only once it approved it. */
  approverKey?: string | undefined;
  /**
   * `--approver-oidc PATTERN`: OIDC identities (globs over the verified token's `sub`) that
   * may approve a break-glass too, as `oidc:<sub>`. The tokens are checked by `auth`'s verifier.
   */
  approverOidc?: readonly string[] | undefined;
  /** Who may act as whom (OIDC, scoped keys); the shared `key` alone when not given. */
  auth?: Authorizer | undefined;
  /** Blocking acquire (`Prefer: wait=N`); one with the default caps when not given. */
  held?: HeldRequests | undefined;
  /** Its names beyond loopback (`--public-url`, the listen address); loopback only when not given. */
  names?: KernelNames | undefined;
  /** Recurring freeze windows, listed in the overview for the console. */
  windows?: FreezeWindows | undefined;
  /** The promotion order (`--promote`): each resource and the one a commit must complete first. */
  promote?: Map<string, string> | undefined;
  /** GitHub's compare: with it, a descendant of a commit that completed the step passes too. */
  compare?: GitHubCompare | undefined;
  /** Extra lines for `/readyz` and the overview (the notifier's failed deliveries). */
  health?: (() => Record<string, unknown>) | undefined;
}

/** What `/readyz` tells a caller without the kernel's key when it is not ready: no more. */
const NOT_READY = {
  ok: false,
  reason: 'not_ready',
  message: "The kernel is not ready; its key's holders can ask /readyz why.",
};

const resource = z.string().check(z.regex(RESOURCE_PATTERN, `expected ${RESOURCE_FORM}`));
const actorDid = z.string().check(z.refine(isDid, `expected ${DID_FORM}`));
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

/** The overview is paged by resource name: `?after=R&limit=N`; `detail=1` adds each waiter's `sinceMs`. */
const overviewQuery = z.object({
  detail: z.optional(z.literal('1')),
  after: z.optional(resource),
  limit: z.optional(
    z.string().check(
      z.regex(/^\d{1,5}$/, `expected a whole number from 1 to ${OVERVIEW_PAGE.max}`),
      z.refine(
        (n) => Number(n) >= 1 && Number(n) <= OVERVIEW_PAGE.max,
        `expected a whole number from 1 to ${OVERVIEW_PAGE.max}`,
      ),
    ),
  ),
});

/** `principal`: who `authorize` found behind the request's credential (routes that take an actorDid pass it to `mayActAs`). */
type Route = (req: AppRequest, principal: Principal) => Promise<AppResponse>;

const NEVER_ABORTED = new AbortController().signal;
const OPEN: Principal = { kind: 'open' };
/** Routes that take the admin key instead of the kernel's key. */
const ADMIN_PATHS = new Set([
  REVOKE_PATH,
  FREEZE_PATH,
  UNFREEZE_PATH,
  BREAK_GLASS_PATH,
  APPROVE_BREAK_GLASS_PATH,
  WITHDRAW_BREAK_GLASS_PATH,
]);

/** The operator's levers need the admin key; they are off without one. */
function requireAdmin(req: AppRequest, adminKey: string | undefined): void {
  if (!adminKey) {
    throw new ApiRefusal('This needs the kernel to be started with LEASE_GATE_ADMIN_KEY.', {
      status: 403,
      reason: 'admin_disabled',
    });
  }
  if (!bearerMatches(req.headers.authorization, adminKey)) {
    throw new ApiRefusal('This needs the admin key (LEASE_GATE_ADMIN_KEY) as the Bearer token.', {
      status: 403,
      reason: 'forbidden',
    });
  }
}

/**
 * The second operator's approval needs its own credential, so the admin key alone cannot do
 * both halves: the approver key, or an OIDC token (verified as every token is) whose `sub`
 * matches `--approver-oidc`; then the token, not the body, names the approver.
 */
function approverCheck(
  approverKey: string | undefined,
  patterns: readonly string[] | undefined,
  auth: Authorizer,
): ((req: AppRequest) => Promise<Approver>) | undefined {
  if (approverKey === undefined && !patterns?.length) return undefined;
  const matches = patterns?.length ? anyOf(patterns) : undefined;
  const needs = [
    ...(approverKey !== undefined ? ['the approver key (LEASE_GATE_APPROVER_KEY)'] : []),
    ...(patterns?.length ? [`an OIDC token whose sub matches ${patterns.join(' or ')}`] : []),
  ].join(' or ');
  return async (req) => {
    const header = req.headers.authorization;
    if (approverKey !== undefined && bearerMatches(header, approverKey)) return { kind: 'key' };
    const bearer = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (matches && JWT_SHAPE.test(bearer)) {
      // A bad, expired or foreign token is refused 401 here, as on every other route.
      const principal = await auth.authorize(req.headers);
      if (principal.kind === 'oidc') {
        const sub = principal.claims.sub;
        const printable = typeof sub === 'string' && SUB_PATTERN.test(sub);
        if (printable && matches(sub))
          return {
            kind: 'oidc',
            by: `oidc:${sub}`,
            repoPrefix: repoPrefixOf(principal.run.didPrefix),
            // The run's attempt, which approves one pass: its DID prefix without the last colon.
            approval: principal.run.didPrefix.slice(0, -1),
          };
        // Only a printable sub is quoted back: the message reaches terminals and logs.
        const whose = printable ? `This token's sub (${sub})` : 'A token without a printable sub';
        throw new ApiRefusal(
          `${whose} may not approve a break-glass: approving needs ${needs} as the Bearer token.`,
          { status: 403, reason: 'forbidden' },
        );
      }
    }
    throw new ApiRefusal(`Approving a break-glass needs ${needs} as the Bearer token.`, {
      status: 403,
      reason: 'forbidden',
    });
  };
}
/**
 * `did:web:<host>:<owner>:<repo>:` from a run's DID prefix: every run and attempt of the
 * repository shares it, so a re-run cannot approve the pass its first attempt was given.
 */
function repoPrefixOf(didPrefix: string): string {
  return didPrefix.slice(0, didPrefix.indexOf(':actions:runs:') + 1);
}
/** Three base64url parts: what a JWS in compact form looks like. */
const JWT_SHAPE = /^[\w-]+\.[\w-]*\.[\w-]*$/;
/** A `sub` the ledger may name: printable, bounded (GitHub's are `repo:OWNER/REPO:…`). */
const SUB_PATTERN = /^[\x21-\x7e]{1,256}$/;

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

/** Routing, keys, origin checks and validation; the service does the rest. */
export function createKernelApp(options: AppOptions): App {
  const { service } = options;
  const names = options.names ?? new KernelNames();
  const held = options.held ?? new HeldRequests(service);
  const watches = new LeaseWatches(service);
  const promotions = options.promote?.size
    ? new Promotions(service, options.promote, options.compare)
    : undefined;
  const auth = options.auth ?? createAuthorizer({ key: options.key });
  const ok = (body: unknown, status = 200): AppResponse => ({ status, body });
  /**
   * `/readyz` answers anyone (a load balancer, a probe by address), but why it
   * is not ready (the store's error) and the notifier's failures (URLs' origins,
   * resource names) only the operator: the admin key or the kernel's shared key
   * (or anyone, on a keyless kernel). Not a scoped key or an OIDC token: any
   * repository's run gets a token that verifies, whether or not the policy lets
   * it lease anything.
   */
  const mayReadHealth = async (req: AppRequest): Promise<boolean> => {
    if (options.adminKey && bearerMatches(req.headers.authorization, options.adminKey)) return true;
    // Any failure to name the caller (a refused token, an issuer not reached) tells no more.
    return auth.authorize(req.headers).then(
      (principal) => principal.kind === 'shared-key' || principal.kind === 'open',
      () => false,
    );
  };

  const routes: Record<string, Route> = {
    [`POST ${LEASE_PATH}`]: async (req, principal) => {
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
    },
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
      if (!options.adminKey) {
        throw new ApiRefusal('Revoking needs the kernel to be started with LEASE_GATE_ADMIN_KEY.', {
          status: 403,
          reason: 'revoke_disabled',
        });
      }
      if (!bearerMatches(req.headers.authorization, options.adminKey)) {
        throw new ApiRefusal(
          'Revoking needs the admin key (LEASE_GATE_ADMIN_KEY) as the Bearer token.',
          { status: 403, reason: 'forbidden' },
        );
      }
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
    ...freezeRoutes(service, (req) => requireAdmin(req, options.adminKey)),
    ...breakGlassRoutes(
      service,
      (req) => requireAdmin(req, options.adminKey),
      approverCheck(options.approverKey, options.approverOidc, auth),
    ),
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
    [`GET ${KERNEL_RESOURCES_PATH}`]: async (req) => {
      const { after, limit, detail } = parse(overviewQuery, {
        after: req.query.get('after') ?? undefined,
        limit: req.query.get('limit') ?? undefined,
        detail: req.query.get('detail') ?? undefined,
      });
      const size = limit === undefined ? OVERVIEW_PAGE.default : Number(limit);
      const overview = await service.overview();
      const windows = options.windows?.describe(overview.nowMs);
      const page = overviewPage(overview, after, size);
      return ok({
        ok: true,
        ...page,
        ...(detail ? {} : { resources: withoutDetail(page.resources) }),
        ...(windows ? { windows } : {}),
        ...(promotions ? { promotions: promotions.steps } : {}),
        ...options.health?.(),
      });
    },
    'GET /healthz': async () => ok({ ok: true }),
    'GET /readyz': async (req) => {
      const told = await mayReadHealth(req);
      try {
        await service.ready();
        return ok(told ? { ok: true, ...options.health?.() } : { ok: true });
      } catch (error) {
        return ok(
          told
            ? {
                ok: false,
                reason: 'store_unavailable',
                message: `the kernel's store is not writable: ${causeText(error)}`,
              }
            : NOT_READY,
          503,
        );
      }
    },
    ...syncedFirst(ledgerRoutes(service.ledger), service),
  };
  const open = new Set(['GET /healthz', 'GET /readyz']);
  const paths = new Set(Object.keys(routes).map((r) => r.slice(r.indexOf(' ') + 1)));

  const app = async (req: AppRequest): Promise<AppResponse> => {
    try {
      const name = `${req.method} ${req.path}`;
      // Health checks come by address (a container's, a pod's): they carry no lease data.
      if (!open.has(name) && !names.hostAllowed(req.headers.host)) refuseHost(req.headers.host);
      const route = routes[name];
      if (!route) {
        throw paths.has(req.path)
          ? new ApiRefusal(`${req.method} is not served on ${req.path}.`, {
              status: 405,
              reason: 'method_not_allowed',
            })
          : new ApiRefusal(`No route ${req.method} ${req.path}.`, {
              status: 404,
              reason: 'not_found',
            });
      }
      if (req.method === 'POST') refuseCrossOrigin(req, names);
      // The operator's levers check the admin key themselves; every other call names its caller here.
      const principal =
        ADMIN_PATHS.has(req.path) || open.has(name) ? OPEN : await auth.authorize(req.headers);
      return await route(req, principal);
    } catch (error) {
      if (error instanceof ApiRefusal || error instanceof AuthRefusal) {
        return {
          status: error.status,
          body: { ok: false, reason: error.reason, message: error.message },
        };
      }
      if (error instanceof StoreUnavailableError) {
        return {
          status: 503,
          body: { ok: false, reason: 'store_unavailable', message: error.message },
        };
      }
      throw error;
    }
  };
  return Object.assign(app, {
    serves: (path: string) => paths.has(path),
    names,
    close: () => {
      held.close();
      watches.close();
    },
  });
}

/** A replica's ledger catches up with the shared store before it answers. */
function syncedFirst(routes: Record<string, Route>, service: PlaneService): Record<string, Route> {
  const synced: Record<string, Route> = {};
  for (const [name, route] of Object.entries(routes)) {
    synced[name] = async (req, principal) => {
      await service.syncLedger();
      return route(req, principal);
    };
  }
  return synced;
}

/** A name that is not ours: a DNS-rebinding page, or a proxy not named with --public-url. */
function refuseHost(host: string | undefined): never {
  const shown = JSON.stringify((host ?? '').slice(0, 100));
  throw new ApiRefusal(
    `This kernel does not answer to Host ${shown}: it answers to loopback names, its listen address and each --public-url.`,
    { status: 421, reason: 'misdirected' },
  );
}

/**
 * A browser page from another origin may not change anything here. The
 * origin is checked against the kernel's own names, never built from `Host`
 * alone (a rebinding page controls the name it is reached by).
 */
function refuseCrossOrigin(req: AppRequest, names: KernelNames): void {
  const { origin, host } = req.headers;
  if (
    (origin !== undefined && !names.originAllowed(origin, host)) ||
    req.headers['sec-fetch-site'] === 'cross-site'
  ) {
    throw new ApiRefusal(
      `Requests that change leases must come from this kernel's own origin (${names.describe(host)}), not from a page on another site.`,
      { status: 403, reason: 'cross_origin' },
    );
  }
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

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares in constant time (over digests, so lengths do not leak either). */
export function bearerMatches(header: string | undefined, key: string): boolean {
  const value = header ?? '';
  const token = value.startsWith('Bearer ') ? value.slice(7) : '';
  return timingSafeEqual(digest(token), digest(key)) && token.length > 0;
}
