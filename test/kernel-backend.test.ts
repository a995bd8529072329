import { describe, expect, it } from 'vitest';
import type { Backend, ChangeNotice } from '../src/kernel/store/backend.js';
import { ResourceTable } from '../src/kernel/rules/core.js';
import { LocalBackend } from '../src/kernel/store/local-backend.js';
import { KernelService } from '../src/kernel/service/service.js';
import { memoryStore } from '../src/kernel/store/store.js';
import { Ledger } from '../src/ledger/ledger.js';

const A = 'did:web:backend.example:a';
const B = 'did:web:backend.example:b';

/**
 * A test backend through the same interface as PostgreSQL's: the in-process
 * one's states, declared shared, so the service must find lapses by sweeping
 * `due` (no alarms) and learn of changes only through `watch`, as a replica does.
 */
function sharedBackend(ttlMs: number) {
  const local = new LocalBackend({
    table: new ResourceTable({ ttlMs }),
    store: memoryStore(),
    ledger: new Ledger(),
    now: () => Date.now(),
  });
  let heard: ((notice: ChangeNotice) => void) | undefined;
  const backend: Backend = {
    ledger: local.ledger,
    batching: local.batching,
    name: 'the test store',
    ttlMs,
    shared: true,
    open: () => local.open(),
    async commit(work) {
      const results = await local.commit(work);
      // Every change comes back as a notice, as NOTIFY brings a replica its own commits.
      for (const result of results) {
        if (result.status === 'fulfilled' && result.value.events.length) {
          const { state, events } = result.value;
          queueMicrotask(() => heard?.({ resource: state.resource, events }));
        }
      }
      return results;
    },
    due: (limit) => local.due(limit),
    deadlines: () => {
      throw new Error('a shared backend is swept, never asked for its deadlines');
    },
    watch: (listener) => (heard = listener),
    listen: () => local.listen(),
    onSequenced: (listener) => local.onSequenced(listener),
    announceFreed: async (resource) => heard?.({ resource, events: [], freed: true }),
    syncLedger: () => local.syncLedger(),
    searchLedger: undefined,
    now: () => local.now(),
    overview: () => local.overview(),
    ready: () => local.ready(),
    close: () => local.close(),
  };
  return { backend, notify: (notice: ChangeNotice) => heard?.(notice) };
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i += 1) await new Promise((r) => setTimeout(r, 25));
};

describe('the kernel service over a shared backend', () => {
  it('records a lapse by sweeping what the backend says is due', async () => {
    const { backend } = sharedBackend(200);
    const { service } = await KernelService.over(backend);
    const kinds: string[] = [];
    service.onChange((_resource, event) => kinds.push(event.kind));
    expect(await service.lease('r', A)).toMatchObject({ ok: true });
    await until(() => kinds.includes('lapse'));
    expect(kinds).toEqual(['grant', 'lapse']);
    expect(await service.status('r')).toBeNull();
    await service.close();
  });

  it("wakes held requests on another replica's change, told once per event", async () => {
    const { backend, notify } = sharedBackend(30_000);
    const { service } = await KernelService.over(backend);
    const woken: string[] = [];
    const kinds: string[] = [];
    service.onResourceChanged((resource) => woken.push(resource));
    service.onChange((_resource, event) => kinds.push(event.kind));
    await service.lease('r', A);
    await until(() => kinds.length === 1);
    expect(woken).toEqual([]);
    const release = {
      kind: 'release' as const,
      atMs: Date.now(),
      resource: 'q',
      actorDid: B,
      leaseId: 'lease_x',
      fence: 7,
    };
    notify({ resource: 'q', events: [release] });
    notify({ resource: 's', events: [], freed: true });
    expect(woken).toEqual(['q', 's']);
    expect(kinds).toEqual(['grant', 'release']);
    await service.close();
  });
});
