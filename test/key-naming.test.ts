import { describe, expect, it } from 'vitest';
import { memoryContext } from '../src/action/context.js';
import { readKey } from '../src/action/settings.js';
import { helperEnv } from '../src/lease/helpers.js';
import { keyFromEnv } from '../src/lease/settings.js';
import { createPlaneClient } from '../src/plane/client.js';
import { startScriptedPlane } from './support/scripted-plane.js';
import { causeText } from '../src/errors.js';

/** One naming for keys: LEASE_GATE_KEY first, INTRAMEDIAL_KEY for the hosted plane. */

describe('the key a client sends', () => {
  it('is LEASE_GATE_KEY, else INTRAMEDIAL_KEY, and says which', () => {
    expect(keyFromEnv({ LEASE_GATE_KEY: 'ours', INTRAMEDIAL_KEY: 'hosted' })).toEqual({
      value: 'ours',
      from: 'LEASE_GATE_KEY',
    });
    expect(keyFromEnv({ INTRAMEDIAL_KEY: ' hosted ' })).toEqual({
      value: 'hosted',
      from: 'INTRAMEDIAL_KEY',
    });
    expect(keyFromEnv({})).toEqual({ value: '', from: 'INTRAMEDIAL_KEY' });
  });

  it("in the action is the 'key' input, else the environment", () => {
    const ctx = (inputs: Record<string, string>, env: Record<string, string>) =>
      memoryContext({ inputs, env });
    expect(readKey(ctx({ key: 'input' }, { LEASE_GATE_KEY: 'env' }))).toBe('input');
    expect(readKey(ctx({ key: '' }, { LEASE_GATE_KEY: 'env', INTRAMEDIAL_KEY: 'x' }))).toBe('env');
  });

  it("in the keeper is the step's key, whatever other key the step's environment held", () => {
    const step = {
      LEASE_GATE_KEY: 'stale',
      INTRAMEDIAL_KEY: 'hosted',
      INPUT_KEY: 'input',
      PATH: '/bin',
    };
    expect(keyFromEnv(helperEnv('input', step))).toEqual({
      value: 'input',
      from: 'LEASE_GATE_KEY',
    });
    expect(helperEnv('input', step)).toEqual({ LEASE_GATE_KEY: 'input', PATH: '/bin' });
    expect(keyFromEnv(helperEnv('', step)).value).toBe('');
  });
});

describe("a refusal of the credential carries the plane's own words", () => {
  it('says no key was sent, and what the kernel said, escaped to one line', async () => {
    const plane = await startScriptedPlane(() => ({
      status: 401,
      body: {
        ok: false,
        reason: 'unauthorized',
        message: 'This kernel needs its key\n(LEASE_GATE_KERNEL_KEY).',
      },
    }));
    const client = createPlaneClient({ apiUrl: plane.url });
    try {
      const error = await client
        .lease({ resource: 'lock:deploy/production', actorDid: 'did:web:ci:a' })
        .catch((e: unknown) => e);
      const message = causeText(error);
      // The newline is escaped as the project escapes every plane text (%0A), so the line stays one.
      expect(message).toContain('(This kernel needs its key%0A(LEASE_GATE_KERNEL_KEY).)');
      expect(message).toContain('no key was sent');
      expect(message).toContain('LEASE_GATE_KEY');
      expect(message).not.toMatch(/[\r\n]/);
    } finally {
      await client.close();
      await plane.close();
    }
  });
});
