import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../src/console/serve.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { memoryStore } from '../src/kernel/store/store.js';
import { A, B, R } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';

const KEY = 'kernel-key';
let running: RunningKernel | undefined;

closeAfterEach(() => [running]);

async function start() {
  running = await startKernelServer({
    table: new ResourceTable({ random: () => 0.5 }),
    store: memoryStore(),
    key: KEY,
  });
  return running.url;
}

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await request(url, { headers });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
};

const lease = async (url: string, actorDid: string, headers: Record<string, string> = {}) => {
  const res = await request(`${url}/api/v1/acp/coordination/lease`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, ...headers },
    body: JSON.stringify({ resource: R, actorDid }),
  });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
};

describe('the kernel serves the console', () => {
  it('serves the pages without the key, under a strict policy, and nothing else', async () => {
    const url = await start();
    const page = await get(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(page.text).toContain('<script type="module" src="console/console.js"></script>');
    expect(page.text).not.toMatch(/<script>|<style>| style=| on[a-z]+=/);
    const script = await get(`${url}/console/console.js`);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)[a-z]/);
    expect((await get(`${url}/playground`)).text).toContain('console/playground.js');
    const unknown = await get(`${url}/console/../package.json`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ ok: false, reason: 'not_found' });
  });

  it('answers 503 with a plain reason when the pages are not built', async () => {
    const { createConsole } = await import('../src/console/serve.js');
    const empty = mkdtempSync(join(tmpdir(), 'console-assets-'));
    writeFileSync(join(empty, 'index.html'), '<!doctype html>');
    const serve = createConsole({ assetsDir: empty });
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      if (!serve(req, res)) res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    const base = `http://127.0.0.1:${address.port}`;
    expect((await get(`${base}/`)).status).toBe(200);
    const missing = await get(`${base}/console/console.js`);
    expect([missing.status, missing.text]).toEqual([
      503,
      'The console is not built: run npm run build.\n',
    ]);
    expect((await get(`${base}/api/v1/kernel/resources`)).status).toBe(404);
    await new Promise((resolve) => server.close(resolve));
  });

  it('lists holders and queues on GET /api/v1/kernel/resources, with the key', async () => {
    const url = await start();
    expect((await get(`${url}/api/v1/kernel/resources`)).status).toBe(401);
    await lease(url, A);
    await lease(url, B);
    const answer = await get(`${url}/api/v1/kernel/resources`, { authorization: `Bearer ${KEY}` });
    const body = JSON.parse(answer.text) as { ok: boolean; nowMs: number; resources: unknown[] };
    expect(body.ok).toBe(true);
    expect(body.resources).toEqual([
      {
        resource: R,
        lease: expect.objectContaining({ holder: A, fence: 1, grantedAtMs: expect.any(Number) }),
        reserved: null,
        queue: [{ actorDid: B, position: 0 }],
      },
    ]);
  });

  it('refuses state changes from another origin, and takes them from its own', async () => {
    const url = await start();
    const host = new URL(url).host;
    expect(await lease(url, A, { origin: 'http://evil.example' })).toEqual({
      status: 403,
      body: expect.objectContaining({ ok: false, reason: 'cross_origin' }),
    });
    expect((await lease(url, A, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(
      (await lease(url, A, { origin: `http://${host}`, 'sec-fetch-site': 'same-origin' })).status,
    ).toBe(200);
  });
});
