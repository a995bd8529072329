import * as z from 'zod/mini';
import type { HttpAnswer } from '../http/client.js';
import { GitHubError, headerOf, parseJson } from '../github/rest.js';
import type { GitHubApp } from './github.js';

/**
 * The App's own webhook deliveries (App JWT), which recovery reads at start:
 * `GET /app/hook/deliveries` newest first, pages of 100 followed by their cursor, and
 * one delivery's payload (`GET /app/hook/deliveries/{id}`).
 */

/** One of the App's webhook deliveries, as `GET /app/hook/deliveries` lists it. */
export interface HookDelivery {
  id: number;
  guid: string;
  deliveredAtMs: number;
  redelivery: boolean;
  statusCode: number;
  event: string;
  action: string | null;
}

/** The two delivery calls over `get` (a GET as the App, retried like every call). */
export function hookDeliveries(
  get: (path: string) => Promise<HttpAnswer>,
): Pick<GitHubApp, 'listDeliveries' | 'deliveryPayload'> {
  return {
    async listDeliveries({ sinceMs, maxItems }) {
      const found: HookDelivery[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_DELIVERY_PAGES; page += 1) {
        const query = `per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const answer = await get(`/app/hook/deliveries?${query}`);
        const items = z.array(hookDeliverySchema).safeParse(parseJson(answer.text));
        if (!items.success) {
          throw new GitHubError(
            "GET /app/hook/deliveries: GitHub's answer is not a list of deliveries",
            { status: answer.status },
          );
        }
        for (const item of items.data) {
          const deliveredAtMs = Date.parse(item.delivered_at);
          // Newest first: once past the window, every later item is older still.
          if (!(deliveredAtMs >= sinceMs)) return found;
          found.push({
            id: item.id,
            guid: item.guid,
            deliveredAtMs,
            redelivery: item.redelivery,
            statusCode: item.status_code,
            event: item.event,
            action: item.action ?? null,
          });
          if (found.length >= maxItems) return found;
        }
        cursor = nextCursor(headerOf(answer, 'link'));
        if (!cursor) return found;
      }
      return found;
    },
    async deliveryPayload(id) {
      const answer = await get(`/app/hook/deliveries/${id}`);
      const detail = deliveryDetailSchema.safeParse(parseJson(answer.text));
      return detail.success ? (detail.data.request.payload ?? undefined) : undefined;
    },
  };
}

/** At most this many pages of 100 deliveries are read at start (GitHub keeps 3 days of them). */
const MAX_DELIVERY_PAGES = 30;

const hookDeliverySchema = z.object({
  id: z.number().check(z.int(), z.positive()),
  guid: z.string().check(z.maxLength(100)),
  delivered_at: z.string().check(z.maxLength(40)),
  redelivery: z.boolean(),
  status_code: z.number(),
  event: z.string().check(z.maxLength(64)),
  action: z.optional(z.nullable(z.string().check(z.maxLength(64)))),
});
const deliveryDetailSchema = z.object({
  request: z.object({ payload: z.optional(z.nullable(z.unknown())) }),
});

/**
 * The `cursor` of the Link header's `rel="next"`, never its URL: the next page is
 * asked of the configured API origin, so a header cannot send the App JWT elsewhere.
 */
export function nextCursor(link: string | undefined): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (!match) continue;
    try {
      const cursor = new URL(match[1]!).searchParams.get('cursor');
      return cursor && cursor.length <= 200 ? cursor : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
