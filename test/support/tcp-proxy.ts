import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A proxied connection's two ends: kept in `sockets` (to cut them all) until each
 * closes, their errors ignored (a cut is the test's doing), and either end's close
 * ends the other.
 */
export function joinSockets(client: Socket, upstream: Socket, sockets: Set<Socket>): void {
  for (const s of [client, upstream]) {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  }
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}

/**
 * A loopback TCP proxy in front of PostgreSQL, to take the database away and
 * give it back, or to cut a connection the moment a given statement is sent.
 */
export async function startTcpProxy(targetHost: string, targetPort: number) {
  const sockets = new Set<Socket>();
  let down = false;
  let cutOn: string | undefined;
  let target = { host: targetHost, port: targetPort };
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(target.port, target.host);
    joinSockets(client, upstream, sockets);
    client.on('data', (chunk: Buffer) => {
      if (cutOn !== undefined && chunk.includes(cutOn)) {
        cutOn = undefined;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    /** The database is gone: every connection cut, new ones refused. */
    takeDown() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    bringUp() {
      down = false;
    },
    /** New connections go to this server from now on (a failover's new primary). */
    retarget(host: string, port: number) {
      target = { host, port };
    },
    /** Cuts the connection that next sends this text (for example COMMIT), before it arrives. */
    cutWhenSent(text: string) {
      cutOn = text;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
