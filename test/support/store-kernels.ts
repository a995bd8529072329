import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { afterAll, afterEach, describe } from 'vitest';
import type { GitHubCompare } from '../../src/github/compare.js';
import { ResourceTable } from '../../src/kernel/rules/core.js';
import { NEXT_IN_LINE_WAIT_MS } from '../../src/kernel/rules/rules.js';
import { startKernelServer, type RunningKernel } from '../../src/kernel/http/server.js';
import { fileStore, memoryStore } from '../../src/kernel/store/store.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { startReplica } from './pg-kernel.js';
import { describePostgres, testSchema } from './postgres.js';

/** What a contract test may choose of the kernel it starts, whatever keeps its state. */
export interface KernelChoice {
  key?: string;
  adminKey?: string;
  /** A second operator's key: a break-glass then waits for its approval. */
  approverKey?: string;
  /** The promotion order (`--promote`): each resource and the one before it. */
  promote?: Map<string, string>;
  /** GitHub's compare: with it, a descendant of a commit that completed the step passes too. */
  compare?: GitHubCompare;
  ttlMs?: number;
  nextInLineWaitMs?: number;
  /** Signs checkpoints when given; an unsigned ledger otherwise. */
  signingKey?: KeyObject;
}

export interface StoreUnderTest {
  name: 'memory' | 'file' | 'postgres';
  /** A describe that runs here (PostgreSQL: skipped with one line when none is reachable). */
  describe(name: string, body: () => void): void;
  /** A fresh kernel with empty state on 127.0.0.1:0, behind the real HTTP adapter. */
  start(choice?: KernelChoice): Promise<RunningKernel>;
  /** Removes what the starts left behind (files, schemas). */
  cleanup(): Promise<void>;
}

const inProcess = (store: () => Parameters<typeof startKernelServer>[0]['store']) => {
  return (choice: KernelChoice) =>
    startKernelServer({
      table: new ResourceTable({
        ttlMs: choice.ttlMs ?? 30_000,
        ...(choice.nextInLineWaitMs ? { nextInLineWaitMs: choice.nextInLineWaitMs } : {}),
      }),
      store: store(),
      key: choice.key,
      adminKey: choice.adminKey,
      approverKey: choice.approverKey,
      promote: choice.promote,
      compare: choice.compare,
      ledger: new Ledger(choice.signingKey),
      log: () => undefined,
    });
};

function memory(): StoreUnderTest {
  return {
    name: 'memory',
    describe,
    start: (choice = {}) => inProcess(memoryStore)(choice),
    cleanup: async () => undefined,
  };
}

function file(): StoreUnderTest {
  const dirs: string[] = [];
  return {
    name: 'file',
    describe,
    start: (choice = {}) =>
      inProcess(() => {
        const dir = mkdtempSync(join(tmpdir(), 'lease-gate-contract-'));
        dirs.push(dir);
        return fileStore(join(dir, 'kernel.log'));
      })(choice),
    cleanup: async () => {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Each start gets a schema of its own (a fresh plane); all are dropped at the end. */
function postgres(): StoreUnderTest {
  const drops: Array<() => Promise<void>> = [];
  return {
    name: 'postgres',
    describe: describePostgres,
    async start(choice = {}) {
      const { schema, drop } = await testSchema();
      drops.push(drop);
      return startReplica(schema, {
        key: choice.key,
        adminKey: choice.adminKey,
        approverKey: choice.approverKey,
        promote: choice.promote,
        compare: choice.compare,
        ttlMs: choice.ttlMs ?? 30_000,
        nextInLineWaitMs: choice.nextInLineWaitMs ?? NEXT_IN_LINE_WAIT_MS,
        ledger: new Ledger(choice.signingKey),
      });
    },
    cleanup: async () => {
      for (const drop of drops.splice(0)) await drop();
    },
  };
}

/** Every store the kernel runs on; a contract test runs against each. */
export const STORES: readonly StoreUnderTest[] = [memory(), file(), postgres()];

/**
 * Declares a suite per store. `start` gives a fresh kernel; kernels close
 * after each test and the store's leftovers go after the suite.
 */
export function describeEachStore(
  title: string,
  body: (start: (choice?: KernelChoice) => Promise<RunningKernel>, store: StoreUnderTest) => void,
): void {
  for (const store of STORES) {
    store.describe(`${title} (${store.name} store)`, () => {
      const open: RunningKernel[] = [];
      afterEach(async () => {
        for (const kernel of open.splice(0)) await kernel.close();
      });
      afterAll(() => store.cleanup());
      body(async (choice) => {
        const kernel = await store.start(choice);
        open.push(kernel);
        return kernel;
      }, store);
    });
  }
}
