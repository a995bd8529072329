import { describe, expect, it } from 'vitest';
import { INPUTS, INPUT_DEFAULTS, type InputName } from '../src/action/io.js';
import { memoryContext } from '../src/action/context.js';
import { readSettings } from '../src/action/settings.js';
import { SettingsError } from '../src/lease/errors.js';
import { causeText } from '../src/errors.js';

/** The inputs as a runner gives them: action.yml's defaults (action-contract.test.ts), a token. */
const DEFAULTS: Record<InputName, string> = { ...INPUT_DEFAULTS, 'github-token': 'ghs_token' };
const RUN_ENV = {
  GITHUB_REPOSITORY: 'acme/shop',
  GITHUB_RUN_ID: '42',
  GITHUB_JOB: 'deploy',
  INTRAMEDIAL_KEY: 'k-env',
};

function settings(inputs: Partial<Record<InputName, string>>, env: NodeJS.ProcessEnv = RUN_ENV) {
  const all = { ...DEFAULTS, ...inputs };
  return readSettings(memoryContext({ inputs: all, env }), 'nonce');
}

function failure(inputs: Partial<Record<InputName, string>>, env?: NodeJS.ProcessEnv): string {
  try {
    settings(inputs, env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return causeText(error);
  }
  throw new Error('expected a SettingsError');
}

describe('readSettings', () => {
  it('reads the action.yml defaults', () => {
    expect(settings({})).toEqual({
      resource: 'lock:deploy/production',
      actorDid: 'did:web:github.com:acme:shop:actions:runs:42:attempts:1:jobs:deploy:nonce',
      apiUrl: 'https://api.intramedial.com',
      key: 'k-env',
      waitTimeoutMs: 1_800_000,
      onTimeout: 'fail',
      keepAlive: true,
      dryRun: false,
      githubToken: 'ghs_token',
      statusContext: 'lease-gate/lock:deploy/production',
      auth: 'key',
      onOutdated: 'skip',
      queue: 'fifo',
      deploy: { repository: 'acme/shop', runUrl: 'https://github.com/acme/shop/actions/runs/42' },
    });
  });

  it('reads the deploy identity from GITHUB_* and leaves out what is malformed', () => {
    const s = settings(
      { 'on-outdated': 'fail', queue: 'newest' },
      {
        ...RUN_ENV,
        GITHUB_WORKFLOW: 'Deploy',
        GITHUB_WORKFLOW_REF: 'acme/shop/.github/workflows/deploy.yml@refs/heads/main',
        GITHUB_REF: 'refs/heads/main',
        GITHUB_SHA: 'c'.repeat(40),
        GITHUB_RUN_NUMBER: '17',
        GITHUB_RUN_ATTEMPT: '2',
        GITHUB_SERVER_URL: 'https://ghe.example.com',
      },
    );
    expect(s).toMatchObject({ onOutdated: 'fail', queue: 'newest' });
    expect(s.deploy).toEqual({
      repository: 'acme/shop',
      workflow: '.github/workflows/deploy.yml',
      ref: 'refs/heads/main',
      commit: 'c'.repeat(40),
      runNumber: 17,
      runAttempt: 2,
      runUrl: 'https://ghe.example.com/acme/shop/actions/runs/42/attempts/2',
    });
    const odd = settings({}, { ...RUN_ENV, GITHUB_SHA: 'abc', GITHUB_REF: 'refs/heads/a b' });
    expect(odd.deploy).toEqual({
      repository: 'acme/shop',
      runUrl: 'https://github.com/acme/shop/actions/runs/42',
    });
  });

  it('takes an empty on-outdated or queue as its default', () => {
    expect(settings({ 'on-outdated': '', queue: '' })).toMatchObject({
      onOutdated: 'skip',
      queue: 'fifo',
    });
  });

  it('asks keylessly when the job may have an OIDC token and no key is given (auth: auto)', () => {
    const ID_TOKEN_ENV = {
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://pipelines.example/_apis/token?api-version=2.0',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'request-token',
    };
    const read = (inputs: Record<string, string>, env: Record<string, string>) =>
      readSettings(
        memoryContext({ inputs: { ...DEFAULTS, ...inputs }, env: { ...RUN_ENV, ...env } }),
        'nonce',
      );
    const keyless = read({}, { ...ID_TOKEN_ENV, INTRAMEDIAL_KEY: '' });
    expect(keyless).toMatchObject({ auth: 'oidc', key: '', oidcAudience: 'lease-gate' });
    expect(typeof keyless.bearer).toBe('function');
    // A key wins in auto; 'oidc' sends the token even with a key around.
    expect(read({}, ID_TOKEN_ENV)).toMatchObject({ auth: 'key', key: 'k-env' });
    expect(read({ auth: 'oidc', 'oidc-audience': 'plane.example' }, ID_TOKEN_ENV)).toMatchObject({
      auth: 'oidc',
      key: '',
      oidcAudience: 'plane.example',
    });
    // Neither a key nor id-token: write: fail closed, naming what to give.
    // auth: auto names both ways in: a key, or the job's OIDC token.
    expect(() => read({}, { INTRAMEDIAL_KEY: '' })).toThrow(
      /No plane key and no OIDC token: either set the 'key' input \(or LEASE_GATE_KEY or INTRAMEDIAL_KEY\).*`permissions: id-token: write`/,
    );
    expect(() => read({ auth: 'oidc' }, {})).toThrow(/input 'auth'.*id-token: write/i);
    expect(() => read({ auth: 'key' }, { ...ID_TOKEN_ENV, INTRAMEDIAL_KEY: '' })).toThrow(
      /No plane key/,
    );
    expect(() => read({ auth: 'token' }, {})).toThrow(
      /Invalid input 'auth': 'token'. Expected 'auto', 'key' or 'oidc'/,
    );
    expect(() => read({ 'oidc-audience': 'a b' }, ID_TOKEN_ENV)).toThrow(
      /Invalid input 'oidc-audience'/,
    );
  });

  it('prefers the key input over INTRAMEDIAL_KEY', () => {
    expect(settings({ key: 'k-input' }).key).toBe('k-input');
  });

  it('accepts every documented form', () => {
    const s = settings({
      resource: 'lock:deploy/eu-1',
      'actor-did': 'did:web:acme.example:agent:release',
      'api-url': 'http://127.0.0.1:8787/',
      'wait-timeout': '0',
      'on-timeout': 'skip',
      'keep-alive': 'False',
      'dry-run': 'TRUE',
    });
    expect(s).toMatchObject({
      resource: 'lock:deploy/eu-1',
      actorDid: 'did:web:acme.example:agent:release',
      apiUrl: 'http://127.0.0.1:8787',
      waitTimeoutMs: 0,
      onTimeout: 'skip',
      keepAlive: false,
      dryRun: true,
    });
  });

  it.each<[InputName, string, RegExp]>([
    [INPUTS.resource, 'a b', /'resource'.*printable characters without spaces/],
    [INPUTS.resource, 'lock:deploy production', /'resource'/],
    [INPUTS.resource, 'x'.repeat(257), /'resource'/],
    [INPUTS.onOutdated, 'rollback', /'on-outdated'.*'skip', 'fail', 'deploy'/],
    [INPUTS.queue, 'lifo', /'queue'.*'fifo', 'newest'/],
    [INPUTS.actorDid, 'release-bot', /'actor-did'.*did:<method>:<id>/],
    [INPUTS.actorDid, 'did:Web:x', /'actor-did'/],
    [INPUTS.actorDid, 'did:web:', /'actor-did'/],
    [INPUTS.apiUrl, 'http://plane.example.com', /'api-url'.*https:\/\//],
    [INPUTS.apiUrl, 'ftp://127.0.0.1', /'api-url'/],
    [INPUTS.apiUrl, 'not a url', /'api-url'/],
    [INPUTS.apiUrl, 'http://127.0.0.1:8787/api/v1', /'api-url'.*without a path/],
    [INPUTS.apiUrl, 'https://plane.example.com/?x=1', /'api-url'/],
    [INPUTS.apiUrl, 'https://plane.example.com/#top', /'api-url'/],
    [INPUTS.apiUrl, 'https://user:pw@plane.example.com', /'api-url'/],
    [INPUTS.waitTimeout, '10 minutes', /'wait-timeout'.*'500ms', '90s', '15m', '1h'/],
    [INPUTS.waitTimeout, '-5', /'wait-timeout'/],
    [INPUTS.onTimeout, 'retry', /'on-timeout'.*'fail' or 'skip'/],
    [INPUTS.keepAlive, 'yes', /'keep-alive'.*'true' or 'false'/],
    [INPUTS.dryRun, '1', /'dry-run'.*'true' or 'false'/],
    [INPUTS.statusContext, 'a\nb', /'status-context'.*one line/],
    [INPUTS.statusContext, 'x'.repeat(300), /'status-context'/],
  ])('rejects %s = %j, naming the input and the form', (name, value, message) => {
    expect(failure({ [name]: value })).toMatch(message);
  });

  it('fails closed without a key unless it is a dry run', () => {
    const env = { ...RUN_ENV, INTRAMEDIAL_KEY: '' };
    expect(failure({}, env)).toMatch(/No plane key.*INTRAMEDIAL_KEY/);
    expect(settings({ 'dry-run': 'true' }, env).key).toBe('');
  });

  it('needs actor-did outside a GitHub run', () => {
    expect(failure({}, { INTRAMEDIAL_KEY: 'k' })).toMatch(
      /'actor-did' is empty and cannot be derived/,
    );
    expect(settings({ 'actor-did': 'did:key:z6Mk' }, { INTRAMEDIAL_KEY: 'k' }).actorDid).toBe(
      'did:key:z6Mk',
    );
  });

  it('never echoes the key in a message', () => {
    const message = failure({ key: 'sekrit-value', 'on-timeout': 'nope' });
    expect(message).not.toContain('sekrit-value');
  });
});
