import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { LEASE, R, RELEASE, REVOKE } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

/**
 * The kernel knows its own names: a `Host` that is not loopback, its listen
 * address or a --public-url is answered 421 and changes nothing (the
 * DNS-rebinding attack), and same-origin means one of its own origins, so the
 * console works behind a TLS proxy named with --public-url and nowhere else.
 */

const VICTIM = 'did:web:acme.example:agent:victim';
const EVIL = 'did:web:evil.example:agent';
const ADMIN = 'admin-key-5e1f';
let kernel: RunningKernel | undefined;

closeAfterEach(() => [kernel]);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** One request with the headers as given (Host included), as a browser or curl sends them. */
function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const url = new URL(kernel!.url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? (body ? 'POST' : 'GET'),
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          let parsed: Record<string, unknown> = {};
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            parsed = { text };
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const port = () => new URL(kernel!.url).port;
const holder = async () =>
  ((await send(`${LEASE}?resource=${encodeURIComponent(R)}`)).body.lease as { holder?: string })
    ?.holder;

describe('the kernel knows its own names', () => {
  it('refuses the DNS-rebinding attack: a foreign Host with a matching Origin changes nothing', async () => {
    kernel = await startKernelServer({ log: () => undefined });
    expect((await send(LEASE, { body: { resource: R, actorDid: VICTIM } })).status).toBe(200);
    const evil = `rebind.evil.example:${port()}`;
    const headers = { host: evil, origin: `http://${evil}` };
    const release = await send(RELEASE, { headers, body: { resource: R, actorDid: VICTIM } });
    expect(release.status).toBe(421);
    expect(release.body).toMatchObject({ ok: false, reason: 'misdirected' });
    expect(release.body.message).toContain('rebind.evil.example');
    const take = await send(LEASE, { headers, body: { resource: R, actorDid: EVIL } });
    expect(take.status).toBe(421);
    // Nor can it read: the overview, the ledger, the console page.
    for (const path of ['/api/v1/kernel/resources', '/api/v1/acp/ledger/bundle', '/']) {
      expect((await send(path, { headers })).status).toBe(421);
    }
    expect(await holder()).toBe(VICTIM);
    const overview = await send('/api/v1/kernel/resources');
    expect(overview.body.resources).toEqual([
      expect.objectContaining({
        resource: R,
        queue: [],
        lease: expect.objectContaining({ holder: VICTIM }),
      }),
    ]);
  });

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.0.0.2', '127.0.0.2'],
    ['[::1]', '[::1]'],
    ['localhost', 'localhost'],
  ])(
    'answers Host %s at any port, and takes a change from its own http origin',
    async (_, name) => {
      kernel = await startKernelServer({ log: () => undefined });
      for (const host of [`${name}:${port()}`, `${name}:9`, name]) {
        const answer = await send(LEASE, {
          headers: { host, origin: `http://${host}` },
          body: { resource: R, actorDid: VICTIM },
        });
        expect(answer.status).toBe(200);
      }
      const foreignPage = await send(RELEASE, {
        headers: { host: `${name}:${port()}`, origin: `http://${name}:3000` },
        body: { resource: R, actorDid: VICTIM },
      });
      expect(foreignPage.status).toBe(403);
      expect(foreignPage.body.reason).toBe('cross_origin');
      expect(await holder()).toBe(VICTIM);
    },
  );

  it('takes a console revoke from https://gate.example when started with --public-url https://gate.example', async () => {
    kernel = await startKernelServer({
      adminKey: ADMIN,
      publicUrls: ['https://gate.example'],
      log: () => undefined,
    });
    await send(LEASE, { body: { resource: R, actorDid: VICTIM } });
    // What the TLS proxy forwards: the public name as Host, the page's https origin.
    const page = await send('/', { headers: { host: 'gate.example' } });
    expect(page.status).toBe(200);
    const revoke = await send(REVOKE, {
      headers: {
        host: 'gate.example',
        origin: 'https://gate.example',
        authorization: `Bearer ${ADMIN}`,
        'sec-fetch-site': 'same-origin',
      },
      body: { resource: R, reason: 'incident 12' },
    });
    expect(revoke.status).toBe(200);
    expect(revoke.body).toMatchObject({ ok: true, revoked: true });
    expect(await holder()).toBeUndefined();
    // Another https origin is still another site.
    const other = await send(REVOKE, {
      headers: {
        host: 'gate.example',
        origin: 'https://other.example',
        authorization: `Bearer ${ADMIN}`,
      },
      body: { resource: R },
    });
    expect(other.status).toBe(403);
  });

  it('refuses the same console revoke without --public-url', async () => {
    kernel = await startKernelServer({ adminKey: ADMIN, log: () => undefined });
    await send(LEASE, { body: { resource: R, actorDid: VICTIM } });
    const headers = {
      origin: 'https://gate.example',
      authorization: `Bearer ${ADMIN}`,
    };
    const viaProxy = await send(REVOKE, {
      headers: { ...headers, host: 'gate.example' },
      body: { resource: R },
    });
    expect(viaProxy.status).toBe(421);
    const direct = await send(REVOKE, { headers, body: { resource: R } });
    expect(direct.status).toBe(403);
    expect(direct.body.reason).toBe('cross_origin');
    expect(await holder()).toBe(VICTIM);
  });

  it('answers health checks by any name (a container or pod address), and nothing else', async () => {
    kernel = await startKernelServer({ log: () => undefined });
    const headers = { host: '10.1.2.3:8787' };
    expect((await send('/healthz', { headers })).status).toBe(200);
    expect((await send('/readyz', { headers })).status).toBe(200);
    expect((await send(`${LEASE}?resource=${R}`, { headers })).status).toBe(421);
  });

  it('refuses a public URL that is not an origin', async () => {
    await expect(
      startKernelServer({ publicUrls: ['https://gate.example/console'] }),
    ).rejects.toThrow(/not a public URL/);
  });
});
