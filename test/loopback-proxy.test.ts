import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlaneClient } from '../src/plane/client.js';
import { granted, startScriptedPlane, type ScriptedPlane } from './support/scripted-plane.js';
import { R } from './support/names.js';

/**
 * Every address the client treats as loopback goes direct, whatever the proxy
 * variables say: a proxy on loopback records all it is asked (plain requests
 * and CONNECT tunnels) and must see nothing, while the plane sees the keyed call.
 */

const ME = 'did:web:acme.example:agent:me';
const KEY = 'sekrit-loopback-key';
let plane: ScriptedPlane | undefined;
let proxy: Server | undefined;

afterEach(async () => {
  await plane?.close();
  plane = undefined;
  proxy?.closeAllConnections();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  proxy = undefined;
});

/** A proxy that answers 502 to everything and remembers what it was asked. */
async function recordingProxy(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.writeHead(502).end();
  });
  proxy.on('connect', (req, socket: Socket) => {
    seen.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, seen };
}

describe('loopback never meets a proxy', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', 'http://127.0.0.1'],
    ['127.0.0.2 (the rest of 127.0.0.0/8)', '127.0.0.2', 'http://127.0.0.2'],
    ['[::1]', '::1', 'http://[::1]'],
    ['localhost', 'localhost', 'http://localhost'],
  ])(
    '%s goes direct with HTTP_PROXY, HTTPS_PROXY and a NO_PROXY that does not name it',
    async (_, bind, base) => {
      const recorder = await recordingProxy();
      plane = await startScriptedPlane(() => ({ body: granted(ME) }), bind);
      const apiUrl = `${base}:${new URL(plane.url).port}`;
      for (const env of [
        { HTTP_PROXY: recorder.url, NO_PROXY: '' },
        { HTTPS_PROXY: recorder.url, http_proxy: recorder.url, no_proxy: 'example.com' },
        { HTTP_PROXY: recorder.url, NO_PROXY: 'other.example,10.0.0.0/8' },
      ]) {
        const client = createPlaneClient({
          apiUrl,
          key: KEY,
          env,
          retry: { baseMs: 1, capMs: 1, maxAttempts: 1 },
        });
        const answer = await client.lease({ resource: R, actorDid: ME });
        await client.close();
        expect(answer.kind).toBe('granted');
      }
      expect(recorder.seen).toEqual([]);
      expect(plane.seen).toHaveLength(3);
      expect(plane.seen.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    },
  );
});
