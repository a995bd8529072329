import { AuthRefusal } from '../auth/refusal.js';
import { createAuthorizer, type Authorizer, type Principal } from '../auth/authorize.js';
import { ADMIN_PATHS, operatorChecks } from './admin.js';
import { ApiRefusal, type AppRequest, type AppResponse, type Route } from './api.js';
import { breakGlassRoutes } from './break-glass-routes.js';
import { freezeRoutes } from './freeze-routes.js';
import { leaseRoutes } from './lease-routes.js';
import { ledgerRoutes } from './ledger-routes.js';
import { KernelMetrics } from './metrics.js';
import { METRICS_ROUTE, metricsRoutes } from './metrics-route.js';
import { KernelNames } from './names.js';
import { OPEN_ROUTES, statusRoutes } from './status-routes.js';
import { HeldRequests } from '../service/held.js';
import { LeaseWatches } from '../service/watch.js';
import { Promotions } from '../service/promotions.js';
import { StoreUnavailableError } from '../store/store-error.js';
import type { PlaneService } from '../service/plane-service.js';
import type { FreezeWindows } from '../service/windows.js';
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
  /** The metrics `GET /metrics` serves (metrics.ts); none served without. */
  metrics?: KernelMetrics | undefined;
  /** A key that reads `/metrics` and nothing else (the admin key reads them too). */
  metricsKey?: string | undefined;
}

/** The kernel server's metrics options (server.ts): what `GET /metrics` serves, and to whom. */
export interface MetricsOptions {
  /**
   * By default metrics are kept when someone may read them (a metrics or admin key is set);
   * `false` keeps none (the bench's "off").
   */
  metrics?: KernelMetrics | false | undefined;
  /** A key that reads `/metrics` and nothing else (LEASE_GATE_METRICS_KEY). */
  metricsKey?: string | undefined;
  adminKey?: string | undefined;
}

/** The app's metrics from the server's options: new ones unless off or nobody may read them. */
export function metricsOf(options: MetricsOptions): Pick<AppOptions, 'metrics' | 'metricsKey'> {
  const { metrics, metricsKey, adminKey } = options;
  if (metrics === false) return { metricsKey };
  return {
    metrics: metrics || (metricsKey || adminKey ? new KernelMetrics() : undefined),
    metricsKey,
  };
}

/** Who calls an open route or a lever: the lever checks the admin key itself. */
const OPEN: Principal = { kind: 'open' };

/**
 * Routing, keys, origin checks and validation; the service does the rest. The routes come
 * by concept (lease-, freeze-, break-glass-, status-, ledger-routes), each lever checked
 * with the one admin check (admin.ts).
 */
export function createKernelApp(options: AppOptions): App {
  const { service } = options;
  const names = options.names ?? new KernelNames();
  const held = options.held ?? new HeldRequests(service);
  const watches = new LeaseWatches(service);
  const promotions = options.promote?.size
    ? new Promotions(service, options.promote, options.compare)
    : undefined;
  const auth = options.auth ?? createAuthorizer({ key: options.key });
  const checks = operatorChecks(options, auth);
  const routes: Record<string, Route> = {
    ...leaseRoutes({ service, auth, held, watches, promotions, requireAdmin: checks.requireAdmin }),
    ...freezeRoutes(service, checks.requireAdmin),
    ...breakGlassRoutes(service, checks.requireAdmin, checks.requireApprover),
    ...statusRoutes({
      service,
      windows: options.windows,
      promotions,
      health: options.health,
      mayReadHealth: checks.mayReadHealth,
    }),
    ...syncedFirst(ledgerRoutes(service.ledger), service),
    ...metricsRoutes(options.metrics, options),
  };
  const unobserve = options.metrics && observed(options.metrics, service, held, options.health);
  const paths = new Set(Object.keys(routes).map((r) => r.slice(r.indexOf(' ') + 1)));
  return Object.assign(dispatch(routes, paths, names, auth), {
    serves: (path: string) => paths.has(path),
    names,
    close: () => {
      held.close();
      watches.close();
      unobserve?.();
    },
  });
}

/** Feeds `metrics` from the service's batches and its state at each scrape; returns the undo. */
function observed(
  metrics: KernelMetrics,
  service: PlaneService,
  held: HeldRequests,
  health: (() => Record<string, unknown>) | undefined,
): () => void {
  metrics.scrapeFrom({ service, held, health });
  return service.observe?.(metrics) ?? (() => undefined);
}

/** Finds the request's route, checks its Host, origin and caller, and answers refusals. */
function dispatch(
  routes: Record<string, Route>,
  paths: ReadonlySet<string>,
  names: KernelNames,
  auth: Authorizer,
): (req: AppRequest) => Promise<AppResponse> {
  return async (req) => {
    try {
      const name = `${req.method} ${req.path}`;
      // Health checks come by address (a container's, a pod's): they carry no lease data.
      // A scraper comes by address too; the metrics key guards what it reads.
      const byAddress = OPEN_ROUTES.has(name) || name === METRICS_ROUTE;
      if (!byAddress && !names.hostAllowed(req.headers.host)) refuseHost(req.headers.host);
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
        ADMIN_PATHS.has(req.path) || byAddress ? OPEN : await auth.authorize(req.headers);
      return await route(req, principal);
    } catch (error) {
      return refusalAnswer(error);
    }
  };
}

/** A refusal as the wire has it; anything else is not ours to word and goes on up. */
function refusalAnswer(error: unknown): AppResponse {
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
