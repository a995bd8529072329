import { describe, expect, it } from 'vitest';
import { memoryContext } from '../src/action/context.js';
import { STATE } from '../src/action/io.js';
import { readSavedState, savedStateSchema } from '../src/action/saved-state.js';

describe("main's saved state, as post reads it", () => {
  it('has one schema field for every state name main saves', () => {
    expect(Object.keys(savedStateSchema.shape).sort()).toEqual(Object.keys(STATE).sort());
  });

  it('reads what main saved, numbers as numbers and the fence as its text', () => {
    const ctx = memoryContext({ inputs: {} });
    ctx.saveState(STATE.resource, 'lock:deploy/production');
    ctx.saveState(STATE.actorDid, 'did:web:ci:a');
    ctx.saveState(STATE.leaseId, 'l-1');
    ctx.saveState(STATE.outcome, 'granted');
    ctx.saveState(STATE.expiresAtMs, '1764763200000');
    ctx.saveState(STATE.fence, '9007199254740993');
    ctx.saveState(STATE.dryRun, 'true');
    ctx.saveState(STATE.keeperPid, '4242');
    expect(readSavedState(ctx)).toEqual({
      resource: 'lock:deploy/production',
      actorDid: 'did:web:ci:a',
      leaseId: 'l-1',
      outcome: 'granted',
      expiresAtMs: 1764763200000,
      fence: '9007199254740993',
      dryRun: true,
      keeperPid: 4242,
    });
  });

  it('reads a field that does not parse as absent and keeps the others', () => {
    const ctx = memoryContext({
      inputs: {},
      state: {
        [STATE.resource]: 'lock:deploy/production',
        [STATE.leaseId]: 'l-1',
        [STATE.keeperPid]: '12; rm -rf /',
        [STATE.outcome]: 'maybe',
        [STATE.waitedMs]: '',
      },
    });
    expect(readSavedState(ctx)).toEqual({ resource: 'lock:deploy/production', leaseId: 'l-1' });
  });
});
