import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  BODY_LIMIT_BYTES,
  startKernelServer,
  type RunningKernel,
} from '../src/kernel/http/server.js';
import { memoryStore } from '../src/kernel/store/store.js';
import { closeAfterEach } from './support/cleanup.js';

// A refused request body (too large, or of another media type) is read and dropped only up
// to a bound, and the connection closes after the answer.
let running: RunningKernel | undefined;
closeAfterEach(() => [running]);

/** Sends the head, then `body` bytes in 64 KiB pieces while the socket takes them; what came back. */
function exchange(port: number, head: string, body: number) {
  return new Promise<{ answer: string; sent: number }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    const piece = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (sent < body && !socket.destroyed) {
        const n = Math.min(piece.length, body - sent);
        sent += n;
        if (!socket.write(piece.subarray(0, n))) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    // The kernel may close before it has read everything: a reset is an ending too.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, sent }));
    setTimeout(() => reject(new Error(`the kernel kept the connection open: ${answer}`)), 20_000);
  });
}

const post = (length: number, type = 'application/json') =>
  `POST /api/v1/acp/coordination/lease HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: ${type}\r\ncontent-length: ${length}\r\n\r\n`;

describe("the kernel's refused bodies", () => {
  it('answers 413 to a body over the limit and closes the connection after it', async () => {
    running = await startKernelServer({ store: memoryStore() });
    const port = Number(new URL(running.url).port);
    const length = BODY_LIMIT_BYTES + 10_000;
    const { answer, sent } = await exchange(port, post(length), length);
    expect(sent).toBe(length);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('"reason":"payload_too_large"');
  });

  it('stops reading an endless body after a bound and answers before it ends', async () => {
    running = await startKernelServer({ store: memoryStore() });
    const port = Number(new URL(running.url).port);
    const announced = 1024 * 1024 * 1024;
    const { answer, sent } = await exchange(port, post(announced), 8 * 1024 * 1024);
    // The answer came, and the connection closed, long before the announced gigabyte.
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(sent).toBeLessThan(announced);
  });

  it('answers 415 to another media type and closes the connection after it', async () => {
    running = await startKernelServer({ store: memoryStore() });
    const port = Number(new URL(running.url).port);
    const { answer } = await exchange(port, post(1000, 'text/plain'), 1000);
    expect(answer).toMatch(/^HTTP\/1\.1 415 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
  });
});
