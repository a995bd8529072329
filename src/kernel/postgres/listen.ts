import pg from 'pg';
import * as z from 'zod/mini';
import { kernelEventSchema } from '../rules/event.js';
import { connectionConfig, describe } from './connect.js';
import type { PostgresOptions } from './settings.js';

const RETRY_MS = [250, 500, 1_000, 2_000, 5_000];

/** A change notice: one resource's events of one commit. */
export const changeNoticeSchema = z.object({
  resource: z.string(),
  events: z.array(kernelEventSchema),
  /** A change with no ledger entry that may free the resource (a revoked holder gave back). */
  freed: z.optional(z.boolean()),
});

/** A NOTIFY payload: the notices of one replica (`from`), in the order it committed them. */
export const noticesSchema = z.object({
  from: z.string(),
  changes: z.array(changeNoticeSchema),
});

/** The NOTIFY channel of one plane (one schema). */
export const channelOf = (schema: string) => `lease_gate_${schema}`;

/**
 * One connection that LISTENs on the plane's channel and hands each payload
 * on. When it breaks (the database restarted) it connects again, backing off;
 * `onReconnect` is told, since notifications sent meanwhile are lost.
 */
export function listenForChanges(options: {
  connection: PostgresOptions;
  channel: string;
  onPayload: (payload: string) => void;
  onReconnect?: () => void;
  log: (line: string) => void;
}): { ready: Promise<void>; close(): Promise<void> } {
  let client: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let first = true;

  const connect = async (): Promise<void> => {
    const next = new pg.Client(connectionConfig(options.connection));
    next.on('notification', (message) => {
      if (message.channel === options.channel && message.payload)
        options.onPayload(message.payload);
    });
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('the connection ended')));
    client = next;
    await next.connect();
    await next.query(`LISTEN ${options.channel}`);
    if (failures > 0) options.log('kernel: listening for changes again');
    if (!first) options.onReconnect?.();
    first = false;
    failures = 0;
  };

  const lost = (which: pg.Client, error: unknown) => {
    if (closed || which !== client) return;
    client = undefined;
    which.removeAllListeners('end');
    which.on('error', () => undefined);
    void which.end().catch(() => undefined);
    if (failures === 0) options.log(`kernel: lost the LISTEN connection: ${describe(error)}`);
    retry();
  };

  const retry = () => {
    if (closed || timer) return;
    const delay = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
    failures += 1;
    timer = setTimeout(() => {
      timer = undefined;
      connect().catch((error: unknown) => {
        if (client) lost(client, error);
        else retry();
      });
    }, delay);
    timer.unref();
  };

  const ready = connect().catch((error: unknown) => {
    if (client) lost(client, error);
    throw error;
  });

  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const last = client;
      client = undefined;
      if (last) {
        last.removeAllListeners('end');
        last.on('error', () => undefined);
        await last.end().catch(() => undefined);
      }
    },
  };
}
