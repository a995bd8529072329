import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { joinSockets } from './tcp-proxy.js';

/** What the proxy does to traffic: pass it, hold each chunk `delayMs`, swallow it, or refuse. */
export type FaultMode =
  | { mode: 'pass' }
  | { mode: 'delay'; delayMs: number }
  /** Accepts and reads, forwards nothing either way: a blackhole, as a partition looks. */
  | { mode: 'drop' }
  /** Every connection destroyed, new ones closed at once: a peer that is gone. */
  | { mode: 'cut' };

/** At most this many connections at once; more are closed (a test's proxy, bounded). */
const MAX_CONNECTIONS = 256;

/**
 * A loopback TCP proxy that faults traffic on command: between a client and a kernel, or a
 * replica and PostgreSQL. Setting a mode applies to data from then on (a delay to each chunk
 * as it arrives; drop swallows what arrives while it lasts); `cut` also ends what is open.
 */
export async function startFaultProxy(targetHost: string, targetPort: number) {
  const sockets = new Set<Socket>();
  let fault: FaultMode = { mode: 'pass' };
  const timers = new Set<NodeJS.Timeout>();
  /** When each socket's last held chunk goes: later chunks never overtake it. */
  const due = new WeakMap<Socket, number>();
  const forward = (to: Socket, chunk: Buffer) => {
    const now = fault;
    if (now.mode === 'drop' || now.mode === 'cut') return;
    const at = Math.max(Date.now() + (now.mode === 'delay' ? now.delayMs : 0), due.get(to) ?? 0);
    if (at <= Date.now()) return void to.write(chunk);
    due.set(to, at);
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!to.destroyed) to.write(chunk);
    }, at - Date.now());
    timers.add(timer);
  };
  const server = createServer((client) => {
    if (fault.mode === 'cut' || sockets.size >= MAX_CONNECTIONS) return void client.destroy();
    const upstream = connect(targetPort, targetHost);
    joinSockets(client, upstream, sockets);
    client.on('data', (chunk: Buffer) => forward(upstream, chunk));
    upstream.on('data', (chunk: Buffer) => forward(client, chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    set(next: FaultMode) {
      fault = next;
      if (next.mode === 'cut') for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
