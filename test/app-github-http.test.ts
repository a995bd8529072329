import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubApp, GitHubError } from '../src/app/github.js';
import { createHttpClient, type HttpClient } from '../src/http/client.js';
import { fakeTime } from './support/fake-time.js';
import { causeText } from '../src/errors.js';

// The App's token exchange (@octokit/auth-app) goes through the one HTTP client: its
// timeouts and its proxy rules, not the global fetch's.

const KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function listen(handler: Handler): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer(handler);
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connections: () => connections };
}

function app(apiUrl: string, http: HttpClient) {
  closers.push(() => http.close());
  const time = fakeTime();
  return createGitHubApp({
    appId: '1',
    privateKey: KEY,
    apiUrl,
    http,
    clock: time.clock,
    sleep: time.sleep,
    wallNow: () => Date.parse('2026-12-03T12:00:00Z'),
    random: () => 0.5,
    retry: { baseMs: 10, capMs: 10, maxAttempts: 2 },
  });
}

describe("the App's token exchange", () => {
  it('reaches a loopback GitHub directly, whatever HTTPS_PROXY and HTTP_PROXY say', async () => {
    const seen: { method: string; url: string; agent: string; auth: string }[] = [];
    const github = await listen((req, res) => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        agent: String(req.headers['user-agent']),
        auth: String(req.headers.authorization),
      });
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
      res.end(
        JSON.stringify({
          token: 'ghs_installation',
          expires_at: '2026-12-03T13:00:00Z',
          permissions: { actions: 'read' },
          repository_selection: 'all',
        }),
      );
    });
    const proxy = await listen((_req, res) => res.writeHead(502).end());
    const http = createHttpClient({ env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url } });

    expect(await app(github.url, http).token(42)).toBe('ghs_installation');

    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/app/installations/42/access_tokens',
        agent: expect.stringMatching(/^lease-gate-app/),
        auth: expect.stringMatching(/^bearer \S+\.\S+\.\S+$/i),
      },
    ]);
    expect(proxy.connections()).toBe(0);
  });

  it("gives up on a GitHub that never answers by the client's headers timeout", async () => {
    let asked = 0;
    // Never answers: the request stays open until the test closes the server.
    const github = await listen(() => (asked += 1));
    const http = createHttpClient({ headersTimeoutMs: 150 });

    const failure = await app(github.url, http)
      .token(7)
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    expect(failure).toBeInstanceOf(GitHubError);
    expect(causeText(failure)).toMatch(
      /^installation 7 token: \[POST\] "http:\/\/127\.0\.0\.1:\d+\/app\/installations\/7\/access_tokens": no answer within 150 ms; gave up after 2 attempts$/,
    );
    expect(asked).toBe(2);
  });
});
