/**
 * What the kernel tells of itself: the overview of every resource (the console's, paged),
 * `/healthz` for anyone, and `/readyz`, whose reasons only the operator reads.
 */
import * as z from 'zod/mini';
import '../../zod-en.js';
import { KERNEL_RESOURCES_PATH, resourceSchema as resource } from '../../plane/schema.js';
import { causeText } from '../../errors.js';
import { parse, type AppRequest, type AppResponse, type Route } from './api.js';
import { OVERVIEW_PAGE, overviewPage, withoutDetail } from '../rules/overview.js';
import type { PlaneService } from '../service/plane-service.js';
import type { Promotions } from '../service/promotions.js';
import type { FreezeWindows } from '../service/windows.js';

/** Routes anyone may call, by address, without a key: a probe's. */
export const OPEN_ROUTES: ReadonlySet<string> = new Set(['GET /healthz', 'GET /readyz']);

/** What `/readyz` tells a caller without the kernel's key when it is not ready: no more. */
const NOT_READY = {
  ok: false,
  reason: 'not_ready',
  message: "The kernel is not ready; its key's holders can ask /readyz why.",
};

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

const ok = (body: unknown, status = 200): AppResponse => ({ status, body });

export interface StatusRouteDeps {
  service: PlaneService;
  windows: FreezeWindows | undefined;
  promotions: Promotions | undefined;
  /** Extra lines for `/readyz` and the overview (the notifier's failed deliveries). */
  health: (() => Record<string, unknown>) | undefined;
  /** The operator's check (admin.ts): who may read why the kernel is not ready. */
  mayReadHealth: (req: AppRequest) => Promise<boolean>;
}

/** GET the overview, `/healthz` and `/readyz`. */
export function statusRoutes(deps: StatusRouteDeps): Record<string, Route> {
  const { service, windows: recurring, promotions, health, mayReadHealth } = deps;
  return {
    [`GET ${KERNEL_RESOURCES_PATH}`]: async (req) => {
      const { after, limit, detail } = parse(overviewQuery, {
        after: req.query.get('after') ?? undefined,
        limit: req.query.get('limit') ?? undefined,
        detail: req.query.get('detail') ?? undefined,
      });
      const size = limit === undefined ? OVERVIEW_PAGE.default : Number(limit);
      const overview = await service.overview();
      const windows = recurring?.describe(overview.nowMs);
      const page = overviewPage(overview, after, size);
      return ok({
        ok: true,
        ...page,
        ...(detail ? {} : { resources: withoutDetail(page.resources) }),
        ...(windows ? { windows } : {}),
        ...(promotions ? { promotions: promotions.steps } : {}),
        ...health?.(),
      });
    },
    'GET /healthz': () => Promise.resolve(ok({ ok: true })),
    'GET /readyz': async (req) => {
      const told = await mayReadHealth(req);
      try {
        await service.ready();
        return ok(told ? { ok: true, ...health?.() } : { ok: true });
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
  };
}
