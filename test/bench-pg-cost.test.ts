import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { countingProxy, openingRequests, serverMessages } from '../bench/pg-counting-proxy.js';
import { findPgbench, withUpserts } from '../bench/pgbench.js';
import { describePostgres, POSTGRES_URL, testSchema } from './support/postgres.js';

/** The round-trip counter of `npm run bench -- pg-cost`, on bytes and on the real database. */

/** A server message: its type byte, then a length that counts itself, then the body. */
const message = (type: string, body: string) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(Buffer.byteLength(body, 'latin1') + 4, 1);
  return Buffer.concat([head, Buffer.from(body, 'latin1')]);
};

/** Counts of what `serverMessages` saw in `chunks`, after `bare` bare bytes were announced. */
function counted(chunks: Buffer[], bare = 0) {
  const counts = { ready: 0, commits: 0 };
  const parser = serverMessages({
    ready: () => (counts.ready += 1),
    commit: () => (counts.commits += 1),
  });
  for (let i = 0; i < bare; i += 1) parser.expectByte();
  for (const chunk of chunks) parser.parse(chunk);
  return counts;
}

const bytes = (b: Buffer) => Array.from({ length: b.length }, (_, i) => b.subarray(i, i + 1));

describe("the server's messages", () => {
  // Bodies that hold the bytes 'Z' or "COMMIT" must not count: only a message's type and a
  // CommandComplete's whole tag do.
  const stream = Buffer.concat([
    message('1', ''),
    message('D', 'ZZZZ COMMIT\0'),
    message('C', 'COMMIT\0'),
    message('Z', 'I'),
    message('C', 'INSERT 0 1\0'),
    message('Z', 'T'),
    message('A', '\0\0\0\x01lease_gate\0Z\0'),
  ]);

  it('counts each ReadyForQuery and each COMMIT once, in one chunk', () => {
    expect(counted([stream])).toEqual({ ready: 2, commits: 1 });
  });

  it('counts the same when every byte comes in a chunk of its own', () => {
    expect(counted(bytes(stream))).toEqual({ ready: 2, commits: 1 });
  });

  it('skips the bare byte that answers an SSLRequest, before the first message', () => {
    const answered = Buffer.concat([Buffer.from('N'), stream]);
    expect(counted([answered], 1)).toEqual({ ready: 2, commits: 1 });
    expect(counted(bytes(answered), 1)).toEqual({ ready: 2, commits: 1 });
  });
});

describe("the client's opening requests", () => {
  const request = (code: number) => {
    const b = Buffer.alloc(8);
    b.writeUInt32BE(8, 0);
    b.writeUInt32BE(code, 4);
    return b;
  };
  const startup = Buffer.concat([request(196608), Buffer.from('user\0postgres\0\0')]);
  startup.writeUInt32BE(startup.length, 0);

  it('finds an SSLRequest and a GSSENCRequest, and nothing in or after the startup message', () => {
    let answers = 0;
    const watch = openingRequests(() => (answers += 1));
    const sent = Buffer.concat([request(80877104), request(80877103), startup, request(80877103)]);
    for (const chunk of bytes(sent)) watch(chunk);
    expect(answers).toBe(2);
  });
});

describePostgres('the counting proxy', () => {
  it('counts one round trip per simple query and per extended query, each COMMIT and batch', async () => {
    const proxy = await countingProxy(POSTGRES_URL);
    const client = new pg.Client({ connectionString: proxy.url });
    try {
      await client.connect();
      // The start-up ends with one ReadyForQuery.
      expect(proxy.counts()).toEqual({ ready: 1, commits: 0, batches: 0 });
      await client.query('SELECT 1');
      await client.query('SELECT $1::int AS n', [2]);
      await client.query('BEGIN; SELECT 1; COMMIT');
      expect(proxy.counts()).toEqual({ ready: 4, commits: 1, batches: 0 });
      // A batch is a Bind of the prepared lease_gate_commit: parsed once, bound each time.
      const batch = { name: 'lease_gate_commit', text: 'SELECT $1::int AS n' };
      for (const n of [1, 2, 3]) await client.query({ ...batch, values: [n] });
      expect(proxy.counts()).toEqual({ ready: 7, commits: 1, batches: 3 });
    } finally {
      await client.end();
      await proxy.close();
    }
  });

  const pgbench = findPgbench();
  it.skipIf(!pgbench)('counts pgbench through libpq (which asks for SSL first)', async () => {
    const proxy = await countingProxy(POSTGRES_URL);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    const { schema, drop } = await testSchema();
    await admin.connect();
    try {
      const { tps, transactions } = await withUpserts(pgbench!, admin, schema, (upserts) =>
        upserts(proxy.url, 2, 1),
      );
      // One round trip per transaction, one per start-up: counted against the transactions
      // pgbench says it processed, not tps × seconds, which drifts when the machine is busy.
      const perTransaction = (proxy.counts().ready - 2) / transactions;
      console.log(`pgbench through the proxy: ${tps} tps, ${perTransaction} round trips each`);
      expect(perTransaction).toBeGreaterThan(0.5);
      expect(perTransaction).toBeLessThan(1.1);
    } finally {
      await admin.end();
      await drop();
      await proxy.close();
    }
  });
});
