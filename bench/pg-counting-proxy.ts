import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that counts what matters for the cost of a change (issue
 * #38): the server's ReadyForQuery messages (round trips), its COMMITs, and the client's Binds
 * of lease_gate_commit (a batch's attempts). pg-cost's round-trip figures go through it.
 */

export interface Counts {
  /** ReadyForQuery messages: round trips. */
  ready: number;
  /** CommandComplete messages tagged COMMIT: transactions committed by a COMMIT. */
  commits: number;
  /** Binds of the prepared lease_gate_commit: a batch's attempts (each its own transaction). */
  batches: number;
}

/**
 * A TCP proxy to the database that counts what the server says: PostgreSQL
 * sends exactly one ReadyForQuery per simple query and per Sync of an extended
 * query, so each is one round trip the client waited for. Its `url` is
 * `databaseUrl` with the proxy's address.
 */
export async function countingProxy(databaseUrl: string) {
  const target = new globalThis.URL(databaseUrl);
  const counts: Counts = { ready: 0, commits: 0, batches: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => (s === client ? upstream : client).destroy());
      s.on('close', () => {
        sockets.delete(s);
        (s === client ? upstream : client).end();
      });
    }
    const fromServer = serverMessages({
      ready: () => (counts.ready += 1),
      commit: () => (counts.commits += 1),
    });
    const opening = openingRequests(() => fromServer.expectByte());
    const binds = clientBinds((statement) => {
      if (statement === 'lease_gate_commit') counts.batches += 1;
    });
    client.on('data', (chunk: Buffer) => {
      const rest = opening(chunk);
      if (rest) binds(rest);
    });
    client.pipe(upstream);
    upstream.on('data', fromServer.parse);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = new globalThis.URL(databaseUrl);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    counts: (): Counts => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * The client's opening messages have no type byte: a length, then a code.
 * An SSLRequest or GSSENCRequest (libpq sends one unless told not to) is
 * answered by one bare byte, 'N' or 'S'; calls `answeredByByte` for each, and
 * stops looking at the startup message.
 */
export function openingRequests(answeredByByte: () => void): (chunk: Buffer) => Buffer | undefined {
  let head: Buffer = Buffer.alloc(0);
  let skip = 0;
  let done = false;
  return (chunk) => {
    let i = 0;
    if (done && skip === 0) return chunk;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        skip -= n;
        i += n;
        continue;
      }
      // What follows the startup message: the client's typed messages.
      if (done) return chunk.subarray(i);
      const take = chunk.subarray(i, i + 8 - head.length);
      head = head.length ? Buffer.concat([head, take]) : take;
      i += take.length;
      if (head.length < 8) return;
      const code = head.readUInt32BE(4);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) answeredByByte();
      else done = true;
      skip = head.readUInt32BE(0) - 8;
      head = Buffer.alloc(0);
    }
    return undefined;
  };
}

/**
 * The client's typed messages, across chunk boundaries: calls `bind` with the
 * prepared statement each Bind names (its body: a portal's name, then the statement's).
 */
export function clientBinds(bind: (statement: string) => void): (chunk: Buffer) => void {
  let head: Buffer = Buffer.alloc(0);
  let skip = 0;
  let body: Buffer | undefined;
  let bodyLeft = 0;
  return (chunk) => {
    let i = 0;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        if (body && bodyLeft > 0) {
          const piece = chunk.subarray(i, i + Math.min(n, bodyLeft));
          body = Buffer.concat([body, piece]);
          bodyLeft -= piece.length;
          if (bodyLeft === 0) bind(body.toString('latin1').split('\0')[1] ?? '');
        }
        skip -= n;
        i += n;
        continue;
      }
      const take = chunk.subarray(i, i + 5 - head.length);
      head = head.length ? Buffer.concat([head, take]) : take;
      i += take.length;
      if (head.length < 5) return;
      skip = head.readUInt32BE(1) - 4;
      // A Bind's first 64 bytes hold both names (ours are short).
      body = head[0] === 0x42 ? Buffer.alloc(0) : undefined;
      bodyLeft = body ? Math.min(64, skip) : 0;
      head = Buffer.alloc(0);
    }
  };
}

/**
 * The server's side of the protocol, message by message across chunk
 * boundaries: a type byte and a length that counts itself; `expectByte` says
 * a bare byte (the answer to an SSLRequest) comes first.
 */
export function serverMessages(on: { ready(): void; commit(): void }) {
  let head: Buffer = Buffer.alloc(0);
  let skip = 0;
  let bare = 0;
  // A CommandComplete's tag, gathered up to its first 7 bytes ("COMMIT\0").
  let tag: Buffer | undefined;
  let tagLeft = 0;
  return {
    expectByte: () => void (bare += 1),
    parse: (chunk: Buffer) => {
      let i = 0;
      while (i < chunk.length) {
        if (bare > 0 && head.length === 0 && skip === 0) {
          bare -= 1;
          i += 1;
          continue;
        }
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - i);
          if (tag && tagLeft > 0) {
            const piece = chunk.subarray(i, i + Math.min(n, tagLeft));
            tag = Buffer.concat([tag, piece]);
            tagLeft -= piece.length;
            if (tagLeft === 0 && tag.toString('latin1') === 'COMMIT\0') on.commit();
          }
          skip -= n;
          i += n;
          continue;
        }
        const take = chunk.subarray(i, i + 5 - head.length);
        head = head.length ? Buffer.concat([head, take]) : take;
        i += take.length;
        if (head.length < 5) return;
        const type = head[0];
        skip = head.readUInt32BE(1) - 4;
        if (type === 0x5a) on.ready();
        // 'C' with a body of exactly "COMMIT\0".
        tag = type === 0x43 && skip === 7 ? Buffer.alloc(0) : undefined;
        tagLeft = tag ? 7 : 0;
        head = Buffer.alloc(0);
      }
    },
  };
}
