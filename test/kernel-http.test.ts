import { describe, expect, it } from 'vitest';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { memoryStore } from '../src/kernel/store/store.js';
import { A, LEASE } from './support/names.js';
import { closeAfterEach } from './support/cleanup.js';
import { sendRaw as send } from './support/http.js';

/**
 * What the app answers before any store is involved (bad input, routes).
 * The contract that goes through a store runs against every store in
 * kernel-contract.test.ts and kernel-contract-model.test.ts.
 */

let running: RunningKernel | undefined;

closeAfterEach(() => [running]);

async function start() {
  running = await startKernelServer({ table: new ResourceTable(), store: memoryStore() });
  return running.url;
}

describe('the kernel over HTTP', () => {
  it.each([
    ['not JSON', { body: '{oops' }, 400, 'bad_json'],
    ['a wrong type', { body: JSON.stringify({ resource: 7, actorDid: A }) }, 400, 'bad_request'],
    [
      'a bad DID',
      { body: JSON.stringify({ resource: 'r', actorDid: 'alice' }) },
      400,
      'bad_request',
    ],
    ['no body', { body: '' }, 400, 'bad_json'],
    ['an array', { body: '[]' }, 400, 'bad_request'],
    [
      'another media type',
      { body: '{}', headers: { 'content-type': 'text/plain' } },
      415,
      'unsupported_media_type',
    ],
    [
      'an oversized body',
      { body: JSON.stringify({ resource: 'r', actorDid: A, pad: 'x'.repeat(70_000) }) },
      413,
      'payload_too_large',
    ],
  ])('rejects %s with a JSON 4xx', async (_what, init, status, reason) => {
    const url = await start();
    const answer = await send(url, LEASE, init);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ ok: false, reason, message: expect.any(String) });
  });

  it('names the offending field', async () => {
    const url = await start();
    const answer = await send(url, LEASE, { body: JSON.stringify({ resource: 'r' }) });
    expect(answer.body.message).toMatch(/^actorDid:/);
  });

  it('answers 404 and 405 for unknown routes and methods', async () => {
    const url = await start();
    expect((await send(url, '/nope')).status).toBe(404);
    expect((await send(url, '/api/v1/acp/coordination/release', { method: 'GET' })).status).toBe(
      405,
    );
  });
});
