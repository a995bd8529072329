import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// The bundles import src/http/undici-lean.cjs as 'undici' (tsconfig.json "paths").
const require = createRequire(import.meta.url);
const lean = require('../src/http/undici-lean.cjs') as Record<string, unknown>;
const undici = require('undici') as Record<string, unknown>;

describe("the 'undici' the bundles load", () => {
  it('has every export of undici, the same values under the same names', () => {
    expect(Object.keys(lean).sort()).toEqual(Object.keys(undici).sort());
    for (const name of ['Agent', 'ProxyAgent', 'EnvHttpProxyAgent', 'fetch', 'errors']) {
      expect(lean[name], name).toBe(undici[name]);
    }
  });

  it('gives agents request() without loading the rest of undici (fetch, WebSocket, …)', () => {
    const script = `
      const { Agent } = require('./src/http/undici-lean.cjs');
      const ok = typeof new Agent().request === 'function';
      const loaded = Object.keys(require.cache).filter((f) => /undici.(index|lib.web)/.test(f));
      console.log(JSON.stringify({ ok, loaded }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    expect(out).toEqual({ ok: true, loaded: [] });
  });
});
