import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { hasBuiltInProxy } from '../src/http/agents.js';
import { createHttpClient, type HttpClientOptions } from '../src/http/client.js';
import { HttpError } from '../src/http/errors.js';
import { cleanupsAfterEach } from './support/cleanup.js';
import { startHttpsServer, startProxy } from './support/proxy.js';

/**
 * The client's transport on Node's own agents: its deadlines, close(), keep-alive, and the
 * proxy path through a real proxy on loopback (`proxyLoopback`, since loopback never goes
 * through one otherwise): https: tunnelled with CONNECT, http: asked in absolute form, the
 * proxy URL's credentials sent as Proxy-Authorization and never in a message.
 */

const cleanups = cleanupsAfterEach();

async function listen(handler: RequestListener) {
  const server = createServer(handler);
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, connections: () => connections, server };
}

function client(options: HttpClientOptions = {}) {
  const http = createHttpClient({ env: {}, ...options });
  cleanups.push(() => http.close());
  return http;
}

async function failure(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

describe('the HTTP client on node:http', () => {
  it('keeps one connection alive across requests, and close() ends it', async () => {
    const server = await listen((_req, res) => res.end('ok'));
    const http = client();
    for (let i = 0; i < 3; i += 1) expect(await http.getText(server.url)).toBe('ok');
    expect(server.connections()).toBe(1);
    const closed = new Promise((resolve) => server.server.once('close', resolve));
    await http.close();
    await http.close();
    server.server.close();
    await closed;
  });

  it('gives up on a body that stops for bodyTimeoutMs, as a timeout', async () => {
    const server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('the start, then nothing');
    });
    const error = await failure(client({ bodyTimeoutMs: 150 }).getText(server.url));
    expect(error.failure).toBe('timeout');
    expect(error.detail).toBe('the answer stopped for 150 ms');
  });

  it('gives up on a connection that is not made within connectTimeoutMs (a silent proxy)', async () => {
    const proxy = await startProxy({ silent: true });
    cleanups.push(() => proxy.close());
    const https = await startHttpsServer((_req, res) => res.end('ok'));
    cleanups.push(() => https.close());
    const env = { HTTPS_PROXY: proxy.url };
    const http = client({ env, proxyLoopback: true, connectTimeoutMs: 150 });
    const error = await failure(http.getText(https.url));
    expect(error.failure).toBe('timeout');
    expect(error.detail).toBe('no connection within 150 ms');
  });

  it('cuts an answer past MAX_ANSWER_BYTES', async () => {
    const server = await listen((_req, res) => res.end(Buffer.alloc(5 * 1024 * 1024, 'x')));
    const error = await failure(client().getText(server.url));
    expect(error.failure).toBe('too-large');
  });

  it('ends a request under way as cancelled at close(), and refuses later ones', async () => {
    const sockets: Socket[] = [];
    const server = await listen((req) => sockets.push(req.socket));
    const http = client();
    const waiting = failure(http.getText(server.url));
    while (sockets.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const closedBy = new Promise((resolve) => sockets[0]!.once('close', resolve));
    await http.close();
    expect((await waiting).failure).toBe('cancelled');
    await closedBy;
    expect((await failure(http.getText(server.url))).failure).toBe('cancelled');
  });

  it('names a refused connection by its code only', async () => {
    const server = await listen(() => undefined);
    server.server.close();
    server.server.closeAllConnections();
    const error = await failure(client().getText(`${server.url}/x?token=s3cr3t`));
    expect(error.message).toMatch(/^\[GET\] "http:\/\/127\.0\.0\.1:\d+\/x": connection refused/);
  });
});

describe('the HTTP client through a proxy', () => {
  async function proxyAndTargets(options: Parameters<typeof startProxy>[0] = {}) {
    const proxy = await startProxy(options);
    cleanups.push(() => proxy.close());
    const seen: string[] = [];
    const record: RequestListener = (req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers['proxy-authorization'] ?? '-'}`);
      res.end('through');
    };
    const https = await startHttpsServer(record);
    cleanups.push(() => https.close());
    const plain = await listen(record);
    return { proxy, https, plain, seen };
  }

  it('tunnels https: with CONNECT, the credentials as Proxy-Authorization only', async () => {
    const { proxy, https, seen } = await proxyAndTargets();
    const proxyUrl = proxy.withCredentials('us@er', 'p:ss w0rd');
    const http = client({ env: { HTTPS_PROXY: proxyUrl }, proxyLoopback: true });
    expect(await http.getText(`${https.url}/a`)).toBe('through');
    expect(await http.getText(`${https.url}/b`)).toBe('through');
    const basic = `Basic ${Buffer.from('us@er:p:ss w0rd').toString('base64')}`;
    // One tunnel, kept alive for the second request.
    expect(proxy.asked).toEqual([
      { line: `CONNECT ${new URL(https.url).host}`, proxyAuthorization: basic },
    ]);
    expect(seen).toEqual(['GET /a -', 'GET /b -']);
  });

  it('asks http: in absolute form, with Proxy-Authorization', async () => {
    const { proxy, plain, seen } = await proxyAndTargets();
    const proxyUrl = proxy.withCredentials('user', 'pa55');
    const http = client({ env: { http_proxy: proxyUrl }, proxyLoopback: true });
    expect(await http.getText(`${plain.url}/x?y=1`)).toBe('through');
    const basic = `Basic ${Buffer.from('user:pa55').toString('base64')}`;
    expect(proxy.asked).toEqual([{ line: `GET ${plain.url}/x?y=1`, proxyAuthorization: basic }]);
    expect(seen).toEqual(['GET /x?y=1 -']);
  });

  it('sends https: through HTTP_PROXY when HTTPS_PROXY is unset; lower case wins', async () => {
    const { proxy, https } = await proxyAndTargets();
    const other = await startProxy({ refuse: 502 });
    cleanups.push(() => other.close());
    const http = client({ env: { HTTP_PROXY: proxy.url }, proxyLoopback: true });
    expect(await http.getText(https.url)).toBe('through');
    const lower = client({
      env: { https_proxy: proxy.url, HTTPS_PROXY: other.url },
      proxyLoopback: true,
    });
    expect(await lower.getText(https.url)).toBe('through');
    expect(proxy.asked).toHaveLength(2);
    expect(other.asked).toEqual([]);
  });

  it('goes direct to a host NO_PROXY names', async () => {
    const { proxy, https, plain } = await proxyAndTargets();
    const env = { HTTP_PROXY: proxy.url, NO_PROXY: 'example.com,127.0.0.1' };
    const http = client({ env, proxyLoopback: true });
    expect(await http.getText(https.url)).toBe('through');
    expect(await http.getText(plain.url)).toBe('through');
    expect(proxy.asked).toEqual([]);
  });

  it("says a proxy did not open the tunnel, without the proxy's credentials", async () => {
    const { proxy, https } = await proxyAndTargets({ refuse: 407 });
    const env = { HTTPS_PROXY: proxy.withCredentials('user', 'hunter2') };
    const error = await failure(client({ env, proxyLoopback: true }).getText(`${https.url}/x`));
    expect(error.failure).toBe('network');
    expect(error.message).toMatch(
      /^\[GET\] "https:\/\/127\.0\.0\.1:\d+\/x": the proxy did not open the tunnel \(ERR_PROXY_TUNNEL\)$/,
    );
    expect(proxy.asked).toHaveLength(1);
  });

  it('refuses a proxy variable that is not a URL rather than going direct', async () => {
    const { plain, seen } = await proxyAndTargets();
    const env = { HTTP_PROXY: 'user:hunter2 proxy.corp' };
    const error = await failure(client({ env, proxyLoopback: true }).getText(plain.url));
    expect(error.detail).toBe('the proxy named by HTTP_PROXY is not an http: or https: URL');
    expect(error.message).not.toContain('hunter2');
    expect(seen).toEqual([]);
  });

  it('knows the Node versions whose agents take proxyEnv (24.5 on), as engines says', () => {
    expect(['24.4.1', '22.22.0', '20.19.0'].map(hasBuiltInProxy)).toEqual([false, false, false]);
    expect(['24.5.0', '24.22.3', '25.0.0'].map(hasBuiltInProxy)).toEqual([true, true, true]);
  });
});
