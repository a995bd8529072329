import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { causeText, LeaseGateError } from '../src/errors.js';
import { HttpError } from '../src/http/errors.js';
import { MAX_ANSWER_BYTES } from '../src/http/client.js';
import { fetchLedger } from '../src/ledger/remote.js';

/** `ledger export` and post's ledger read go through the one HTTP client and its errors. */

let server: Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

async function serve(answer: (path: string) => { status: number; body: string }): Promise<string> {
  server = createServer((req, res) => {
    const { status, body } = answer(req.url ?? '');
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('fetchLedger', () => {
  it('names the URL and the status of a refusal, as one line a person reads', async () => {
    const url = await serve(() => ({
      status: 401,
      body: '{"ok":false,\n"reason":"unauthorized"}',
    }));
    const error = await fetchLedger(url, 'k').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseGateError);
    expect(causeText(error)).toBe(
      `[GET] "${url}/api/v1/acp/ledger/public-key": 401 {"ok":false, "reason":"unauthorized"}`,
    );
  });

  it('refuses a page that is not a bundle page', async () => {
    const url = await serve((path) =>
      path.endsWith('public-key')
        ? { status: 200, body: 'key' }
        : { status: 200, body: '{"entries":"no"}' },
    );
    await expect(fetchLedger(url)).rejects.toThrow(/not a ledger bundle page/);
  });

  it('stops reading an answer past the one client-wide cap', async () => {
    const url = await serve(() => ({ status: 200, body: 'x'.repeat(MAX_ANSWER_BYTES + 1) }));
    const error = await fetchLedger(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).failure).toBe('too-large');
  });

  it('follows the pages of one export to the end', async () => {
    const checkpoint = 'origin\n3\nroot\n';
    const url = await serve((path) => {
      if (path.endsWith('public-key')) return { status: 200, body: 'key' };
      const second = path.includes('cursor=c2');
      const page = second
        ? { checkpoint, entries: [{ n: 3 }], next: null }
        : { checkpoint, entries: [{ n: 1 }, { n: 2 }], next: 'c2' };
      return { status: 200, body: JSON.stringify(page) };
    });
    const seen: number[] = [];
    const { bundle, publicKey } = await fetchLedger(url, undefined, (n) => seen.push(n));
    expect(publicKey).toBe('key');
    expect(bundle).toEqual({ checkpoint, entries: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    expect(seen).toEqual([2, 3]);
  });
});
