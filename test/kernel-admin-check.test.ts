import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';

/**
 * The operator's levers share one admin check (src/kernel/http/admin.ts). Revoke goes
 * through it too, under its own words (`Revoking needs …`, `revoke_disabled`), which clients
 * and scripts have matched on since before the other levers existed: pinned here, word for word.
 */

const ADMIN = 'admin-check-admin-key';
const REVOKE = '/api/v1/acp/coordination/revoke';
const FREEZE = '/api/v1/acp/coordination/freeze';
const R = 'lock:deploy/production';

const running: RunningKernel[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((k) => k.close()));
});

async function start(adminKey?: string): Promise<string> {
  const kernel = await startKernelServer({ port: 0, adminKey, log: () => undefined });
  running.push(kernel);
  return kernel.url;
}

async function post(url: string, path: string, body: unknown, key?: string) {
  const res = await request(url + path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
  });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

describe('the one admin check', () => {
  it('keeps revoke’s own words when the kernel has no admin key, and the levers’ for freeze', async () => {
    const url = await start();
    expect(await post(url, REVOKE, { resource: R }, 'anything')).toEqual({
      status: 403,
      body: {
        ok: false,
        reason: 'revoke_disabled',
        message: 'Revoking needs the kernel to be started with LEASE_GATE_ADMIN_KEY.',
      },
    });
    expect(await post(url, FREEZE, { resource: R, reason: 'x' }, 'anything')).toEqual({
      status: 403,
      body: {
        ok: false,
        reason: 'admin_disabled',
        message: 'This needs the kernel to be started with LEASE_GATE_ADMIN_KEY.',
      },
    });
  });

  it('refuses a wrong or missing key on revoke as on freeze, and lets the admin key through', async () => {
    const url = await start(ADMIN);
    for (const key of [undefined, 'not-the-admin-key', `${ADMIN}x`]) {
      expect(await post(url, REVOKE, { resource: R }, key)).toEqual({
        status: 403,
        body: {
          ok: false,
          reason: 'forbidden',
          message: 'Revoking needs the admin key (LEASE_GATE_ADMIN_KEY) as the Bearer token.',
        },
      });
      expect(await post(url, FREEZE, { resource: R, reason: 'x' }, key)).toMatchObject({
        status: 403,
        body: {
          reason: 'forbidden',
          message: 'This needs the admin key (LEASE_GATE_ADMIN_KEY) as the Bearer token.',
        },
      });
    }
    expect(await post(url, REVOKE, { resource: R }, ADMIN)).toEqual({
      status: 200,
      body: { ok: true, revoked: false, leaseId: null, holder: null },
    });
  });
});
