import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook receiver on loopback for notification tests. */

export interface Received {
  body: string;
  headers: IncomingMessage['headers'];
}

/** Answers 500 to the first `failFirst` requests, then 204; records what it was sent. */
export async function startReceiver(failFirst = 0) {
  const received: Received[] = [];
  let seen = 0;
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen += 1;
      if (seen <= failFirst) {
        res.writeHead(500).end();
        return;
      }
      received.push({ body, headers: req.headers });
      res.writeHead(204).end();
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const until = async (count: number) => {
    // Bounded: each round is woken by a delivery; 200 rounds is far more than any test needs.
    for (let i = 0; received.length < count && i < 200; i += 1) {
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return received;
  };
  /** Every notification received, a batch's one by one, in the order they came. */
  const notifications = async (count: number) => {
    const flat = () =>
      received.flatMap((r) => {
        const body = JSON.parse(r.body) as Record<string, unknown>;
        return body.kind === 'batch' ? (body.notifications as Record<string, unknown>[]) : [body];
      });
    for (let i = 0; flat().length < count && i < 200; i += 1) await until(received.length + 1);
    return flat();
  };
  return { url, received, until, notifications, seen: () => seen, close };
}
