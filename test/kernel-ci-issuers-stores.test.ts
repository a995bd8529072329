import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizer } from '../src/kernel/auth/authorize.js';
import { createHttpClient } from '../src/http/client.js';
import { issuerSet, startIssuers } from '../src/kernel/auth/issuers.js';
import { compilePolicy } from '../src/kernel/auth/policy.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { PostgresService } from '../src/kernel/postgres/backend.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { fileStore } from '../src/kernel/store/store.js';
import { Ledger } from '../src/ledger/ledger.js';
import { verifyBundle } from '../src/ledger/verify.js';
import { jobDidPrefix } from '../src/plane/ci-job.js';
import { startCiIssuer, type CiIssuer } from './support/fake-issuers.js';
import { exportLedger } from './support/ledger-export.js';
import { POSTGRES_URL, describePostgres, testSchema } from './support/postgres.js';

/**
 * A grant's issuer is kept by every store: written with the entry, read back after a
 * restart (a file kernel, a PostgreSQL replica), and the ledger verifies.
 */

let gitlab: CiIssuer;
const http = createHttpClient({ env: {} });
const signing = generateKeyPairSync('ed25519').privateKey;

beforeAll(async () => {
  gitlab = await startCiIssuer('gitlab');
});
afterAll(async () => {
  await http.close();
  await gitlab?.close();
});

async function auth() {
  const spec = {
    ...{ name: 'gitlab', kind: 'gitlab' as const, url: gitlab.url, audience: gitlab.audience },
    ...{ didHost: new URL(gitlab.url).host, repositories: new Map([['4201', 'acme/shop']]) },
  };
  const policy = compilePolicy(
    { rules: [{ name: 'shop', resources: ['lock:*'], claims: { job_project_id: '4201' } }] },
    [spec],
  );
  return createAuthorizer({
    oidc: { issuers: issuerSet(await startIssuers([spec], http)), policy },
  });
}

async function grantsSurviveRestart(start: () => Promise<RunningKernel>) {
  const token = await gitlab.token();
  const actorDid = `${jobDidPrefix('gitlab', gitlab.claims, new URL(gitlab.url).host)!}deploy`;
  let kernel = await start();
  try {
    const post = (what: string) =>
      fetch(`${kernel.url}/api/v1/acp/coordination/${what}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ resource: 'lock:deploy/x', actorDid, deploy: {} }),
      });
    expect((await post('lease')).status).toBe(200);
    expect((await post('release')).status).toBe(200);
  } finally {
    await kernel.close();
  }
  kernel = await start();
  try {
    const { bundle, publicKey, entries } = await exportLedger(kernel.url, token);
    expect(entries.find((e) => e.kind === 'grant')).toMatchObject({ actorDid, issuer: gitlab.url });
    expect(verifyBundle(bundle, createPublicKey(publicKey))).toMatchObject({
      count: entries.length,
    });
  } finally {
    await kernel.close();
  }
}

describe("a grant's issuer", () => {
  it('is kept by a file kernel across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-issuer-store-'));
    try {
      await grantsSurviveRestart(async () =>
        startKernelServer({
          auth: await auth(),
          table: new ResourceTable({ ttlMs: 30_000 }),
          store: fileStore(join(dir, 'kernel.log')),
          ledger: new Ledger(signing),
          log: () => undefined,
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describePostgres("a grant's issuer on PostgreSQL", () => {
  it('is kept across a restart of the replica', async () => {
    const { schema, drop } = await testSchema();
    try {
      await grantsSurviveRestart(async () => {
        const service = await PostgresService.open({
          url: POSTGRES_URL,
          schema,
          ledger: new Ledger(signing),
          ttlMs: 30_000,
          log: () => undefined,
        });
        return startKernelServer({ auth: await auth(), service, log: () => undefined });
      });
    } finally {
      await drop();
    }
  });
});
