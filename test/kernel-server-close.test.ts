import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { startKernelServer } from '../src/kernel/http/server.js';

/**
 * A kernel's close() ends even while a client is stalled in the middle of a request.
 * server.close() alone waits for every connection with a request in flight (Node's
 * requestTimeout is 300 s), and a replica closing on a dead database held its
 * supervisor that long before the next one started (the asynchronous failover test).
 */
it('close() cuts a request stalled mid-body after the grace, and ends', async () => {
  const kernel = await startKernelServer({ log: () => undefined, closeGraceMs: 20 });
  const socket = connect(Number(new URL(kernel.url).port), '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const inFlight = new Promise((resolve) => kernel.server.once('request', resolve));
  // Headers promise 100 bytes of body; 5 come, and the client stalls.
  socket.write(
    'POST /api/v1/acp/coordination/lease HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      'content-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":',
  );
  // In flight: its headers were read (an idle connection would be closed at once anyway).
  await inFlight;
  await kernel.close();
  // Closed by the server: the stalled connection was cut, the kernel no longer listens.
  await ended;
  expect(socket.destroyed).toBe(true);
  const refused = await new Promise<string>((resolve) =>
    connect(Number(new URL(kernel.url).port), '127.0.0.1')
      .once('connect', () => resolve('connected'))
      .once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error')),
  );
  expect(refused).toBe('ECONNREFUSED');
});
