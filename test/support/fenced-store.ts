import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { request } from 'undici';
import { fenceCheck } from '../../examples/fence-check/fence-middleware.js';

/** One request as the store saw it: the writer's fence, who sent it, when (epoch ms). */
export interface Write {
  fence: number;
  who: string;
  atMs: number;
}

/**
 * A counter service behind the shipped fence middleware (examples/fence-check), on
 * 127.0.0.1:0: GET /value reads, POST /value sets `read + 1`. Both carry the fence, so a
 * newer holder's read already refuses an older holder's write after it. It records every
 * request before the check (what a store without fences would have served) and every
 * accepted write, in order.
 */
export async function startFencedStore() {
  const attempts: Write[] = [];
  const accepted: Write[] = [];
  const values = new Map<string, number>();
  let refused = 0;
  const checked = fenceCheck(async (req, res) => {
    const resource = String(req.headers['lease-gate-resource']);
    if (req.method === 'POST') {
      const body = JSON.parse(await text(req)) as { value: number };
      values.set(resource, body.value);
      accepted.push(writeOf(req));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, value: values.get(resource) ?? 0 }));
  });
  const server = createServer((req, res) => {
    if (req.headers['lease-gate-fence']) attempts.push(writeOf(req));
    res.on('finish', () => void (res.statusCode === 409 && (refused += 1)));
    void Promise.resolve(checked(req, res)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    attempts,
    accepted,
    /** Requests the fence check answered 409 stale_fence. */
    refused: () => refused,
    value: (resource: string) => values.get(resource) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function writeOf(req: { headers: Record<string, string | string[] | undefined> }): Write {
  return {
    fence: Number(req.headers['lease-gate-fence']),
    who: String(req.headers['x-writer'] ?? ''),
    atMs: Date.now(),
  };
}

function text(req: AsyncIterable<Buffer>): Promise<string> {
  return (async () => {
    let body = '';
    for await (const chunk of req) body += chunk.toString();
    return body;
  })();
}

/**
 * One read-modify-write with a fence: read, then write read + 1. `refused` when the store
 * said stale_fence at either step.
 */
export async function fencedIncrement(
  storeUrl: string,
  resource: string,
  fence: number,
  who: string,
): Promise<'written' | 'refused'> {
  const headers = {
    'lease-gate-resource': resource,
    'lease-gate-fence': String(fence),
    'x-writer': who,
  };
  const read = await request(`${storeUrl}/value`, { headers });
  const seen = (await read.body.json()) as { value?: number };
  if (read.statusCode === 409) return 'refused';
  const write = await request(`${storeUrl}/value`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ value: (seen.value ?? 0) + 1 }),
  });
  await write.body.dump();
  return write.statusCode === 409 ? 'refused' : 'written';
}

/** Writes whose fence is below one written before them: a stale holder's after a newer one's. */
export function staleCount(writes: readonly Write[]): number {
  let highest = -Infinity;
  let stale = 0;
  for (const w of writes) {
    if (w.fence < highest) stale += 1;
    highest = Math.max(highest, w.fence);
  }
  return stale;
}

/**
 * The shipped SQL fence checker (examples/fence-check/fence.sql) in `schema`, with a counter
 * beside it: each increment reads in one transaction and writes in another, both after
 * lease_fence_check, as a deploy that reads, works, then writes does.
 */
export async function startSqlFencedStore(url: string, schema: string) {
  const sql = readFileSync(
    new URL('../../examples/fence-check/fence.sql', import.meta.url),
    'utf8',
  );
  const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` });
  pool.on('error', () => undefined);
  await pool.query(sql);
  await pool.query(
    'CREATE TABLE IF NOT EXISTS counter (resource text PRIMARY KEY, value bigint NOT NULL); CREATE TABLE IF NOT EXISTS writes (seq bigserial PRIMARY KEY, resource text NOT NULL, fence bigint NOT NULL, who text NOT NULL, at_ms bigint NOT NULL)',
  );
  const attempts: Write[] = [];
  let refused = 0;
  const fenced = async <T>(
    resource: string,
    fence: number,
    body: (c: pg.PoolClient) => Promise<T>,
  ) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT lease_fence_check($1, $2)', [resource, fence]);
      const result = await body(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if ((error as { code?: string }).code !== '23514') throw error;
      refused += 1;
      return 'refused' as const;
    } finally {
      client.release();
    }
  };
  return {
    async increment(resource: string, fence: number, who: string): Promise<'written' | 'refused'> {
      attempts.push({ fence, who, atMs: Date.now() });
      const read = await fenced(resource, fence, async (c) => {
        const { rows } = await c.query<{ value: string }>(
          'SELECT value FROM counter WHERE resource = $1',
          [resource],
        );
        return Number(rows[0]?.value ?? 0);
      });
      if (read === 'refused') return read;
      attempts.push({ fence, who, atMs: Date.now() });
      const wrote = await fenced(resource, fence, async (c) => {
        await c.query(
          'INSERT INTO counter (resource, value) VALUES ($1, $2) ON CONFLICT (resource) DO UPDATE SET value = EXCLUDED.value',
          [resource, read + 1],
        );
        await c.query('INSERT INTO writes (resource, fence, who, at_ms) VALUES ($1, $2, $3, $4)', [
          resource,
          fence,
          who,
          Date.now(),
        ]);
        return 'written' as const;
      });
      return wrote;
    },
    /** What the database holds: the accepted writes in commit order, and the counter. */
    async read(resource: string) {
      const writes = await pool.query<{ fence: string; who: string; at_ms: string }>(
        'SELECT fence, who, at_ms FROM writes WHERE resource = $1 ORDER BY seq',
        [resource],
      );
      const value = await pool.query<{ value: string }>(
        'SELECT value FROM counter WHERE resource = $1',
        [resource],
      );
      const accepted = writes.rows.map((r) => ({
        fence: Number(r.fence),
        who: r.who,
        atMs: Number(r.at_ms),
      }));
      const count = Number(value.rows[0]?.value ?? 0);
      return { attempts, accepted, refused: () => refused, value: () => count };
    },
    close: () => pool.end(),
  };
}
