import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/http/client.js';
import { createAuthorizer } from '../src/kernel/auth/authorize.js';
import { startKernelServer, type RunningKernel } from '../src/kernel/http/server.js';
import { PostgresService } from '../src/kernel/postgres/backend.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { fileStore } from '../src/kernel/store/store.js';
import type { LedgerEntry } from '../src/ledger/entry.js';
import { Ledger } from '../src/ledger/ledger.js';
import { checkMeaning } from '../src/ledger/meaning.js';
import { createPlaneClient } from '../src/plane/client.js';
import { APPROVE_BREAK_GLASS_PATH } from '../src/plane/schema.js';
import { RUN_CLAIMS, startFakeIssuer, type FakeIssuer, acmeOidc } from './support/fake-oidc.js';
import { exportLedger } from './support/ledger-export.js';
import { POSTGRES_URL, describePostgres, testSchema } from './support/postgres.js';

/**
 * One OIDC approval (a run's attempt) approves one break-glass: a second pass approved with
 * a token of the same run and attempt, on any resource, is refused 409 `approval_used`, also
 * after a restart (the ledger remembers); the ledger records the approving run (`approval`),
 * and verify refuses two passes with one approval.
 */

const ADMIN = 'admin-key-oidc-once';
const OPS_SUB = 'repo:acme/ops:environment:break-glass';
const OPS_RUN = { ...RUN_CLAIMS, sub: OPS_SUB, repository: 'acme/ops', run_id: '777' };
const OPS_APPROVAL = 'did:web:github.com:acme:ops:actions:runs:777:attempts:1';
const job = (run: number) => `did:web:github.com:acme:shop:actions:runs:${run}:attempts:1:jobs:x`;

let issuer: FakeIssuer;
const http = createHttpClient({ env: {} });
const signing = generateKeyPairSync('ed25519').privateKey;

beforeAll(async () => {
  issuer = await startFakeIssuer();
});
afterAll(async () => {
  await http.close();
  await issuer?.close();
});

function kernelOptions() {
  return {
    auth: createAuthorizer({ oidc: acmeOidc(issuer.url, http) }),
    adminKey: ADMIN,
    approverOidc: [OPS_SUB],
    log: () => undefined,
  };
}

async function approve(
  url: string,
  claims: Record<string, unknown>,
  resource: string,
  actorDid: string,
) {
  const res = await fetch(`${url}${APPROVE_BREAK_GLASS_PATH}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await issuer.sign({ claims })}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ resource, actorDid }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The scenario, over a kernel `start` opens afresh on the same state each time. */
async function oneApprovalOnePass(start: () => Promise<RunningKernel>): Promise<void> {
  let kernel = await start();
  const open = async (resource: string, actorDid: string) => {
    const admin = createPlaneClient({ apiUrl: kernel.url });
    try {
      await admin.breakGlass({ resource, actorDid, reason: 'hotfix', by: 'alice' }, ADMIN);
    } finally {
      await admin.close();
    }
  };
  try {
    await open('lock:deploy/a', job(1));
    expect(await approve(kernel.url, OPS_RUN, 'lock:deploy/a', job(1))).toMatchObject({
      status: 200,
      body: { approvedBy: `oidc:${OPS_SUB}`, approval: OPS_APPROVAL },
    });
    // Another token of the same run and attempt, for another job on another resource: refused.
    await open('lock:deploy/b', job(2));
    expect(await approve(kernel.url, OPS_RUN, 'lock:deploy/b', job(2))).toMatchObject({
      status: 409,
      body: {
        reason: 'approval_used',
        message: expect.stringContaining(`${OPS_APPROVAL} already approved a break-glass`),
      },
    });
    // The ledger remembers it across a restart.
    await kernel.close();
    kernel = await start();
    await open('lock:deploy/c', job(3));
    expect(await approve(kernel.url, OPS_RUN, 'lock:deploy/c', job(3))).toMatchObject({
      status: 409,
      body: { reason: 'approval_used', message: expect.stringContaining('ledger entry') },
    });
    // Another run (a second click on GitHub) approves one more.
    expect(
      await approve(kernel.url, { ...OPS_RUN, run_id: '778' }, 'lock:deploy/c', job(3)),
    ).toMatchObject({ status: 200, body: { approval: OPS_APPROVAL.replace('777', '778') } });
    const { entries } = await exportLedger(kernel.url, await issuer.sign({ claims: RUN_CLAIMS }));
    expect(
      entries.filter((e) => e.kind === 'break_glass').map((e) => [e.resource, e.approval]),
    ).toEqual([
      ['lock:deploy/a', OPS_APPROVAL],
      ['lock:deploy/c', OPS_APPROVAL.replace('777', '778')],
    ]);
    checkMeaning(entries, false);
  } finally {
    await kernel.close();
  }
}

describe('one OIDC approval approves one break-glass', () => {
  it('on a file kernel, across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-oidc-once-'));
    try {
      await oneApprovalOnePass(() =>
        startKernelServer({
          ...kernelOptions(),
          table: new ResourceTable({ ttlMs: 30_000 }),
          store: fileStore(join(dir, 'kernel.log')),
          ledger: new Ledger(signing),
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('verify refuses two passes approved by one approval', () => {
    const pass = (seq: number, resource: string): LedgerEntry => ({
      seq,
      tsMs: 100 + seq,
      kind: 'break_glass',
      resource,
      actorDid: job(seq),
      leaseId: '',
      fence: 0,
      reason: 'hotfix',
      by: 'operator:alice',
      approvedBy: `oidc:${OPS_SUB}`,
      approval: OPS_APPROVAL,
      expiresAtMs: 10_000,
    });
    expect(() => checkMeaning([pass(0, 'lock:a')], false)).not.toThrow();
    expect(() => checkMeaning([pass(0, 'lock:a'), pass(1, 'lock:b')], false)).toThrow(
      `entry 1: a break_glass approved by ${OPS_APPROVAL}, which already approved the break_glass of entry 0; one approval approves one pass`,
    );
    const unnamed = pass(0, 'lock:a');
    delete unnamed.approvedBy;
    expect(() => checkMeaning([unnamed], false)).toThrow(/names an approval .* but no approver/);
  });
});

describePostgres('one OIDC approval approves one break-glass on PostgreSQL', () => {
  it('across a restart of the replica', async () => {
    const { schema, drop } = await testSchema();
    try {
      await oneApprovalOnePass(async () => {
        const service = await PostgresService.open({
          url: POSTGRES_URL,
          schema,
          ledger: new Ledger(signing),
          ttlMs: 30_000,
          log: () => undefined,
        });
        return startKernelServer({ ...kernelOptions(), service });
      });
    } finally {
      await drop();
    }
  });
});
