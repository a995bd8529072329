import * as z from 'zod/mini';
import { ENTRY_KINDS } from '../../plane/entry-kinds.js';

/**
 * The console's reads and its one write, all to the page's own origin (the
 * paths are absolute, never a full URL). Keys live in this module only: in
 * memory, gone with the tab; never in storage, a cookie or a URL.
 */

export const PATHS = {
  resources: '/api/v1/kernel/resources',
  checkpoint: '/api/v1/acp/ledger/checkpoint',
  bundle: '/api/v1/acp/ledger/bundle',
  publicKey: '/api/v1/acp/ledger/public-key',
  revoke: '/api/v1/acp/coordination/revoke',
  freeze: '/api/v1/acp/coordination/freeze',
  unfreeze: '/api/v1/acp/coordination/unfreeze',
  breakGlass: '/api/v1/acp/coordination/break-glass',
  approveBreakGlass: '/api/v1/acp/coordination/break-glass/approve',
  withdrawBreakGlass: '/api/v1/acp/coordination/break-glass/withdraw',
} as const;

const MAX_LIST = 10_000;
/** Resources asked per page of the overview (the kernel's most), and how many pages at most. */
const RESOURCES_PAGE = 5_000;
const MAX_RESOURCE_PAGES = 200;
const text = z.string().check(z.maxLength(1_000));
const time = z.number().check(z.minimum(0), z.maximum(8.64e15));
const freezeSchema = z.object({ reason: text, untilMs: z.nullable(time), by: text, atMs: time });
/** What a holder or waiter deploys, as the kernel recorded it; links are checked again when drawn. */
const deploySchema = z.optional(
  z.object({
    repository: z.optional(text),
    workflow: z.optional(text),
    ref: z.optional(text),
    commit: z.optional(text),
    runNumber: z.optional(z.number()),
    runAttempt: z.optional(z.number()),
    runUrl: z.optional(z.string().check(z.maxLength(2_048))),
  }),
);

export const resourcesSchema = z.object({
  ok: z.literal(true),
  nowMs: time,
  resources: z
    .array(
      z.object({
        resource: text,
        lease: z.nullable(
          z.object({
            id: text,
            holder: text,
            expiresAtMs: time,
            fence: z.optional(z.number()),
            grantedAtMs: z.optional(time),
            deploy: deploySchema,
          }),
        ),
        reserved: z.optional(z.nullable(z.object({ holder: text, untilMs: time }))),
        frozen: z.optional(freezeSchema),
        /** An operator's break-glass not used yet: open, or waiting for a second operator. */
        breakGlass: z.optional(
          z.object({
            actorDid: text,
            reason: text,
            by: text,
            untilMs: time,
            pending: z.boolean(),
            approvedBy: z.optional(text),
          }),
        ),
        queue: z
          .array(
            z.object({
              actorDid: text,
              position: z.number(),
              deploy: deploySchema,
              /** When it first asked, by the kernel's clock (`detail=1`; absent from older kernels). */
              sinceMs: z.optional(time),
              /** About how long until it is granted, at recent hold times (`detail=1`, when known). */
              etaMs: z.optional(time),
            }),
          )
          .check(z.maxLength(MAX_LIST)),
      }),
    )
    .check(z.maxLength(RESOURCES_PAGE)),
  /** The `after` of the next page; absent from a kernel that does not page. */
  next: z.optional(z.nullable(z.string().check(z.maxLength(1_000)))),
  /** The promotion order (`--promote`): each step, from and to. */
  promotions: z.optional(z.array(z.object({ from: text, to: text })).check(z.maxLength(100))),
  windows: z.optional(
    z
      .array(
        z.object({
          name: text,
          schedule: text,
          timeZone: text,
          durationMs: z.number(),
          resources: z.array(text).check(z.maxLength(100)),
          reason: text,
          activeFromMs: z.nullable(time),
          activeUntilMs: z.nullable(time),
          nextStartMs: z.nullable(time),
        }),
      )
      .check(z.maxLength(100)),
  ),
  /** The health gate's checks (docs/health-gate.md); absent when the kernel runs none. */
  healthChecks: z.optional(
    z
      .array(
        z.object({
          resource: text,
          url: text,
          healthy: z.nullable(z.boolean()),
          reason: z.nullable(text),
          checkedAtMs: z.nullable(time),
          nextAtMs: z.nullable(time),
        }),
      )
      .check(z.maxLength(100)),
  ),
  notifications: z.optional(
    z.object({
      ok: z.boolean(),
      delivered: z.number(),
      pending: z.number(),
      failed: z.number(),
      dropped: z.number(),
      /** Why notifications have stopped altogether (the kernel's notification thread is gone). */
      stopped: z.optional(text),
      recentFailures: z
        .array(
          z.object({ id: text, url: text, kind: text, resource: text, error: text, atMs: time }),
        )
        .check(z.maxLength(100)),
    }),
  ),
});
export type Resources = z.infer<typeof resourcesSchema>;

export const entrySchema = z.object({
  tsMs: time,
  kind: z.enum(ENTRY_KINDS),
  resource: text,
  actorDid: text,
  leaseId: text,
  fence: z.number(),
  expiresAtMs: z.optional(time),
  reason: z.optional(text),
  by: z.optional(text),
  approvedBy: z.optional(text),
  deploy: deploySchema,
  promotedVia: z.optional(text),
});

const bundleSchema = z.object({
  checkpoint: z.string().check(z.maxLength(10_000)),
  entries: z
    .array(
      z.object({
        index: z.number(),
        entry: z.unknown(),
        inclusionProof: z.array(z.string()).check(z.maxLength(64)),
      }),
    )
    .check(z.maxLength(MAX_LIST)),
  next: z.optional(z.nullable(z.string().check(z.maxLength(1_000)))),
});
export type BundlePage = z.infer<typeof bundleSchema>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The kernel's `reason` word ("forbidden", "admin_disabled"...), when it gave one. */
    readonly reason?: string,
  ) {
    super(message);
  }
}

let readKey: string | undefined;
let adminKey: string | undefined;
export const hasReadKey = () => readKey !== undefined;
export const keys = {
  setRead: (key: string) => void (readKey = key || undefined),
  setAdmin: (key: string) => void (adminKey = key || undefined),
  forgetAdmin: () => void (adminKey = undefined),
  hasAdmin: () => adminKey !== undefined,
};

export async function call(path: string, init: RequestInit = {}, key = readKey): Promise<Response> {
  const headers = new Headers(init.headers);
  if (key) headers.set('authorization', `Bearer ${key}`);
  const response = await fetch(path, {
    ...init,
    headers,
    credentials: 'omit',
    cache: 'no-store',
    referrerPolicy: 'no-referrer',
  });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    let reason: string | undefined;
    try {
      const body = (await response.json()) as { message?: unknown; reason?: unknown };
      if (typeof body.message === 'string') message = body.message.slice(0, 300);
      if (typeof body.reason === 'string') reason = body.reason.slice(0, 64);
    } catch {
      // not JSON: keep the status line
    }
    throw new ApiError(response.status, message, reason);
  }
  return response;
}

async function json<T>(schema: z.ZodMiniType<T>, response: Response, what: string): Promise<T> {
  const parsed = schema.safeParse(await response.json());
  if (!parsed.success)
    throw new ApiError(0, `the kernel's ${what} answer is not in the expected form`);
  return parsed.data;
}

/**
 * Every resource, page by page (bounded), as one list; `nowMs` is the first page's.
 * `detail=1` adds each waiter's `sinceMs`, so its wait survives a reload.
 */
export async function fetchResources(): Promise<Resources> {
  const ask = (after?: string) =>
    `${PATHS.resources}?detail=1&limit=${RESOURCES_PAGE}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`;
  let page = await json(resourcesSchema, await call(ask()), 'resources');
  const all: Resources = { ...page, resources: [...page.resources], next: null };
  for (let n = 1; page.next && n < MAX_RESOURCE_PAGES; n += 1) {
    page = await json(resourcesSchema, await call(ask(page.next)), 'resources');
    for (const row of page.resources) all.resources.push(row);
  }
  return all;
}

export const fetchCheckpoint = async () => (await call(PATHS.checkpoint)).text();

export const fetchPublicKey = async () => (await call(PATHS.publicKey)).text();

/** Entries from `from` to the end of one export, following its cursor (bounded). */
export async function fetchEntries(from: number, maxPages = 20): Promise<BundlePage> {
  let page = await json(
    bundleSchema,
    await call(`${PATHS.bundle}?from=${from}&limit=1000`),
    'ledger bundle',
  );
  const all = { ...page, entries: [...page.entries] };
  for (let n = 1; page.next && n < maxPages; n += 1) {
    page = await json(
      bundleSchema,
      await call(`${PATHS.bundle}?cursor=${encodeURIComponent(page.next)}&limit=1000`),
      'ledger bundle',
    );
    all.entries.push(...page.entries);
  }
  return all;
}

/** A lever's call: `body` posted as JSON with `key`, and the kernel's answer (its JSON). */
export async function postLever(path: string, body: object, key: string): Promise<unknown> {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
  return (await call(path, init, key)).json();
}

/** A lever that takes the admin key: refused here, before any call, when none was typed. */
export async function postAdmin(path: string, body: object): Promise<unknown> {
  if (!adminKey) throw new ApiError(0, 'type the admin key first');
  return postLever(path, body, adminKey);
}

/** `by`: the operator's name ("Your name"), recorded on the revoke's entry as `operator:NAME`. */
export async function revoke(resource: string, reason: string, by?: string) {
  const body = by ? { resource, reason, by } : { resource, reason };
  return (await postAdmin(PATHS.revoke, body)) as { revoked?: boolean };
}
