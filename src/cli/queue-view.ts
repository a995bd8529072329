import * as z from 'zod/mini';
import { createHttpClient } from '../http/client.js';
import { ContractError } from '../plane/errors.js';
import { describeHolder } from '../lease/did.js';
import { untrusted } from '../lease/escape.js';
import type { Settings } from '../lease/settings.js';
import { KERNEL_RESOURCES_PATH } from '../plane/schema.js';
import { etaWords, placeInLine, waitingFor } from '../console/page/words.js';

/**
 * A resource's queue as the console shows it (`lease-gate status`): each waiter's place,
 * how long it has waited and the kernel's estimate, read from the kernel's overview
 * (`/api/v1/kernel/resources?detail=1`). A plane without that route lists no queue.
 */

export interface Waiter {
  actorDid: string;
  /** 0: next in line. */
  position: number;
  /** How long it has waited, by the kernel's clock (absent from older kernels). */
  waitedMs?: number | undefined;
  /** About how long until it is granted, at recent hold times (once a hold has ended). */
  etaMs?: number | undefined;
}

const text = z.string().check(z.maxLength(2_048));
const time = z.number().check(z.minimum(0), z.maximum(8.64e15));
const overviewSchema = z.object({
  nowMs: time,
  resources: z
    .array(
      z.object({
        resource: text,
        queue: z
          .array(
            z.object({
              actorDid: text,
              position: z.number().check(z.int(), z.minimum(0)),
              sinceMs: z.optional(time),
              etaMs: z.optional(time),
            }),
          )
          .check(z.maxLength(10_000)),
      }),
    )
    .check(z.maxLength(5_000)),
  next: z.optional(z.nullable(text)),
});

const PAGE = 5_000;
const MAX_PAGES = 200;

/**
 * The waiters of `resource` in line order, or undefined when the plane has no overview
 * (answers 404: the hosted plane, an older kernel). Pages through the overview by name.
 */
export async function queueOf(
  settings: Pick<Settings, 'apiUrl' | 'key' | 'bearer' | 'resource'>,
  env: NodeJS.ProcessEnv,
): Promise<Waiter[] | undefined> {
  const http = createHttpClient({ env });
  try {
    const credential = settings.bearer ? await settings.bearer() : settings.key;
    const headers: Record<string, string> = credential
      ? { authorization: `Bearer ${credential}` }
      : {};
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const query = `?detail=1&limit=${PAGE}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`;
      const url = `${settings.apiUrl}${KERNEL_RESOURCES_PATH}${query}`;
      const call = `[GET] "${settings.apiUrl}${KERNEL_RESOURCES_PATH}"`;
      const answer = await http.send({ method: 'GET', url, headers });
      if (answer.status === 404) return undefined;
      if (answer.status !== 200)
        throw new ContractError(
          `${call}: answered ${answer.status} ${untrusted(answer.text.replace(/\s+/g, ' '), 200)}`,
          { call, status: answer.status },
        );
      const parsed = overviewSchema.safeParse(parseJson(answer.text));
      if (!parsed.success)
        throw new ContractError(`${call}: the answer is not the kernel's overview`, { call });
      const { nowMs, resources, next } = parsed.data;
      const row = resources.find((r) => r.resource === settings.resource);
      if (row) return row.queue.map((w) => waiter(w, nowMs));
      // Sorted by name: past the resource, or the last page, it has no queue.
      if (!next || resources.some((r) => r.resource > settings.resource)) return [];
      after = next;
    }
    return [];
  } finally {
    await http.close();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function waiter(
  w: {
    actorDid: string;
    position: number;
    sinceMs?: number | undefined;
    etaMs?: number | undefined;
  },
  nowMs: number,
): Waiter {
  return {
    actorDid: w.actorDid,
    position: w.position,
    ...(w.sinceMs === undefined ? {} : { waitedMs: Math.max(0, nowMs - w.sinceMs) }),
    ...(w.etaMs === undefined ? {} : { etaMs: w.etaMs }),
  };
}

/** "  1st in line did:… · waiting 3 min · about 6 min at recent hold times": the console's words. */
export function describeWaiter(w: Waiter): string {
  const parts = [`${placeInLine(w.position)} ${untrusted(describeHolder(w.actorDid), 2_048)}`];
  if (w.waitedMs !== undefined) parts.push(waitingFor(w.waitedMs));
  if (w.etaMs !== undefined) parts.push(etaWords(w.etaMs));
  return `  ${parts.join(' · ')}`;
}
