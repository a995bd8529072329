import { describe, expect, it } from 'vitest';
import { INPUTS, INPUT_DEFAULTS, OUTPUTS } from '../src/action/io.js';
import { actionYml } from './support/runner.js';

describe('action.yml', () => {
  it('declares exactly the typed inputs', () => {
    expect(Object.keys(actionYml.inputs).sort()).toEqual(Object.values(INPUTS).sort());
  });

  it('declares exactly the typed outputs', () => {
    expect(Object.keys(actionYml.outputs).sort()).toEqual(Object.values(OUTPUTS).sort());
  });

  it('has the documented defaults', () => {
    const defaults = Object.fromEntries(
      Object.entries(actionYml.inputs).map(([name, spec]) => [name, spec.default]),
    );
    expect(defaults).toEqual({
      resource: 'lock:deploy/production',
      'actor-did': '',
      'api-url': 'https://api.intramedial.com',
      key: '',
      auth: 'auto',
      'oidc-audience': 'lease-gate',
      'wait-timeout': '30m',
      'on-timeout': 'fail',
      'keep-alive': 'true',
      'dry-run': 'false',
      'github-token': '${{ github.token }}',
      'status-context': 'lease-gate/{resource}',
      'on-outdated': 'skip',
      queue: 'fifo',
    });
  });

  it("takes an explicit empty input as action.yml's default (github-token: no token)", () => {
    for (const [name, spec] of Object.entries(actionYml.inputs)) {
      const declared = spec.default?.includes('${{') ? '' : (spec.default ?? '');
      expect(INPUT_DEFAULTS[name as keyof typeof INPUT_DEFAULTS], name).toBe(declared);
    }
  });

  it('runs the committed bundles on node24 with a post step that always runs', () => {
    expect(actionYml.runs).toEqual({
      using: 'node24',
      main: 'dist/main/index.js',
      post: 'dist/post/index.js',
      'post-if': 'always()',
    });
  });
});
