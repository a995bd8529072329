import { describe, expect, it } from 'vitest';
import { KERNEL_FLAGS } from '../src/cli/flags/kernel.js';
import { optionsOf } from '../src/cli/flags/table.js';
import { kernelSettings } from '../src/cli/kernel-settings.js';
import { UsageError, parse } from '../src/cli/options.js';
import { causeText } from '../src/errors.js';

/**
 * kernelSettings(flags, env): `lease-gate kernel`'s flags, parsed by its own table, to typed
 * settings or a UsageError naming the flag and its form (issue #56, item 6). Pure: no file
 * named here exists, and none is read. One case per rule, as actions/checkout's
 * input-helper tests.
 */

const settings = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  kernelSettings(parse(args, optionsOf(KERNEL_FLAGS)).values, env);

/** The UsageError's message for these flags. */
function refusal(args: string[], env: NodeJS.ProcessEnv = {}): string {
  try {
    settings(args, env);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return causeText(error);
  }
  throw new Error(`accepted: ${args.join(' ')}`);
}

const LONG = 'a-kernel-key-of-32-characters-xx';
const ADMIN = 'an-admin-key-of-32-characters-xx';

describe('kernelSettings: defaults', () => {
  it('listens on loopback, 8787, 30 s leases, a lock-delay of a third plus 2 s, in memory', () => {
    expect(settings([])).toEqual({
      host: '127.0.0.1',
      port: 8787,
      ttlMs: 30_000,
      lockDelayMs: 12_000,
      publicUrls: [],
      keys: { key: undefined, adminKey: undefined, approverKey: undefined },
      auth: {
        'oidc-issuer': undefined,
        'oidc-audience': undefined,
        'oidc-did-host': undefined,
        policy: undefined,
        keys: undefined,
      },
      approverOidc: undefined,
      promote: undefined,
      github: undefined,
      healthChecks: [],
      healthIntervalMs: 10_000,
      healthFreezeHeld: false,
      logFile: undefined,
      postgres: undefined,
      signingKeyFile: undefined,
      windowsFile: undefined,
      notify: { urls: [], secretFile: undefined, file: undefined },
      exitWithPid: 0,
      quiet: false,
      logFormat: 'text',
      warnings: [],
    });
  });

  it('passes the files through unread, and the notify URLs as given', () => {
    const got = settings([
      ...['--windows', '/nowhere/w.json', '--notify', 'https://hook.example/a'],
      ...['--notify-secret-file', '/nowhere/s', '--notify-file', '/nowhere/n.json'],
      ...['--signing-key', '/nowhere/k.pem', '--quiet', '--exit-with-pid', '42'],
    ]);
    expect(got.windowsFile).toBe('/nowhere/w.json');
    expect(got.signingKeyFile).toBe('/nowhere/k.pem');
    expect(got.notify).toEqual({
      urls: ['https://hook.example/a'],
      secretFile: '/nowhere/s',
      file: '/nowhere/n.json',
    });
    expect(got.quiet).toBe(true);
    expect(got.exitWithPid).toBe(42);
  });
});

describe('kernelSettings: --port, --ttl-ms, --lock-delay-ms', () => {
  it('takes a port from 0 to 65535', () => {
    expect(settings(['--port', '0']).port).toBe(0);
    expect(refusal(['--port', '65536'])).toBe(
      "Invalid --port '65536'. Expected a port number from 0 to 65535 (0 picks a free one).",
    );
    expect(refusal(['--port', '80a'])).toMatch(/^Invalid --port '80a'\./);
  });

  it('takes a lease lifetime from 100 ms to an hour', () => {
    expect(settings(['--ttl-ms', '100']).ttlMs).toBe(100);
    expect(refusal(['--ttl-ms', '99'])).toBe(
      "Invalid --ttl-ms '99'. Expected milliseconds from 100 to 3600000.",
    );
    expect(refusal(['--ttl-ms', '3600001'])).toMatch(/^Invalid --ttl-ms '3600001'/);
  });

  it('takes a lock-delay from 0 to the lease lifetime, its default following --ttl-ms', () => {
    expect(settings(['--lock-delay-ms', '0']).lockDelayMs).toBe(0);
    expect(settings(['--ttl-ms', '60000']).lockDelayMs).toBe(22_000);
    expect(refusal(['--ttl-ms', '1000', '--lock-delay-ms', '1001'])).toBe(
      "Invalid --lock-delay-ms '1001'. Expected milliseconds from 0 to the lease lifetime (--ttl-ms, 1000).",
    );
  });
});

describe('kernelSettings: --host, --public-url and the keys', () => {
  it('strips an IPv6 literal of its brackets', () => {
    expect(settings(['--host', '[::1]']).host).toBe('::1');
  });

  it('refuses to listen beyond loopback without a credential', () => {
    expect(refusal(['--host', '0.0.0.0'])).toBe(
      'Refusing to listen on 0.0.0.0 without a credential: set LEASE_GATE_KERNEL_KEY, --keys FILE or --oidc-audience, or keep --host on loopback.',
    );
    const keyed = settings(['--host', '0.0.0.0'], { LEASE_GATE_KERNEL_KEY: LONG });
    expect(keyed.keys.key).toBe(LONG);
    expect(settings(['--host', '0.0.0.0', '--keys', '/nowhere/keys.json']).auth.keys).toBe(
      '/nowhere/keys.json',
    );
  });

  it('refuses a short key beyond loopback, by the listen address or a --public-url', () => {
    expect(refusal(['--host', '0.0.0.0'], { LEASE_GATE_KERNEL_KEY: 'short' })).toMatch(
      /^LEASE_GATE_KERNEL_KEY is shorter than 16 characters, too easy to guess for a kernel reachable at 0\.0\.0\.0/,
    );
    expect(
      refusal(['--public-url', 'https://gate.example'], { LEASE_GATE_KERNEL_KEY: 'short' }),
    ).toMatch(/reachable at gate\.example/);
    expect(settings([], { LEASE_GATE_KERNEL_KEY: 'short' }).keys.key).toBe('short');
  });

  it('takes each --public-url as an origin', () => {
    expect(settings(['--public-url', 'https://gate.example']).publicUrls).toEqual([
      'https://gate.example',
    ]);
    expect(refusal(['--public-url', 'https://gate.example/path'])).toBe(
      "Invalid --public-url 'https://gate.example/path'. Expected an http:// or https:// origin such as https://gate.example (no path, query or credentials).",
    );
  });

  it('refuses operator keys that are not a boundary of their own', () => {
    expect(refusal([], { LEASE_GATE_KERNEL_KEY: LONG, LEASE_GATE_ADMIN_KEY: LONG })).toMatch(
      /^LEASE_GATE_ADMIN_KEY is the kernel key every job holds/,
    );
    expect(refusal([], { LEASE_GATE_APPROVER_KEY: LONG })).toBe(
      'LEASE_GATE_APPROVER_KEY approves what the admin key opens: set LEASE_GATE_ADMIN_KEY too.',
    );
    const both = { LEASE_GATE_ADMIN_KEY: ADMIN, LEASE_GATE_APPROVER_KEY: LONG };
    expect(settings([], both).keys).toEqual({ key: undefined, adminKey: ADMIN, approverKey: LONG });
  });
});

describe('kernelSettings: OIDC, scoped keys and approvers', () => {
  const oidc = ['--oidc-audience', 'lease-gate', '--policy', '/nowhere/policy.json'];

  it('takes --oidc-audience with --policy, and nothing OIDC without the audience', () => {
    expect(settings(oidc).auth['oidc-audience']).toBe('lease-gate');
    expect(refusal(['--policy', '/nowhere/p.json'])).toMatch(
      /^--oidc-issuer, --oidc-did-host and --policy need --oidc-audience AUD/,
    );
    expect(refusal(['--oidc-audience', 'lease-gate'])).toMatch(
      /^--oidc-audience needs --policy FILE/,
    );
    expect(refusal(['--oidc-audience', 'a b', '--policy', '/nowhere/p.json'])).toBe(
      "Invalid --oidc-audience 'a b'. Expected 1 to 200 printable characters.",
    );
  });

  it('refuses the kernel key beside scoped credentials', () => {
    expect(refusal(oidc, { LEASE_GATE_KERNEL_KEY: LONG })).toMatch(
      /^LEASE_GATE_KERNEL_KEY makes everyone who has it trusted to be anyone/,
    );
  });

  it('takes --approver-oidc patterns that name their owner, with an audience and an admin key', () => {
    const approver = ['--approver-oidc', 'repo:acme/ops:environment:break-glass'];
    expect(settings([...oidc, ...approver], { LEASE_GATE_ADMIN_KEY: ADMIN }).approverOidc).toEqual([
      'repo:acme/ops:environment:break-glass',
    ]);
    expect(refusal(approver, { LEASE_GATE_ADMIN_KEY: ADMIN })).toMatch(
      /^--approver-oidc needs --oidc-audience AUD \(and --policy FILE\)/,
    );
    expect(refusal([...oidc, ...approver])).toBe(
      '--approver-oidc approves what the admin key opens: set LEASE_GATE_ADMIN_KEY too.',
    );
    expect(
      refusal([...oidc, '--approver-oidc', 'repo:*'], { LEASE_GATE_ADMIN_KEY: ADMIN }),
    ).toMatch(/^Invalid --approver-oidc 'repo:\*'\. Expected a glob over a token's sub/);
  });
});

describe('kernelSettings: health checks, promotion order, GitHub', () => {
  it('takes one --health-check per resource, an interval and --health-freeze-held', () => {
    const got = settings([
      ...['--health-check', 'production=https://shop.example/health'],
      ...['--health-interval-ms', '5000', '--health-freeze-held'],
    ]);
    expect(got.healthChecks.map((c) => c.resource)).toEqual(['lock:deploy/production']);
    expect(got.healthIntervalMs).toBe(5_000);
    expect(got.healthFreezeHeld).toBe(true);
    const twice = ['production=https://a.example/h', 'production=https://b.example/h'];
    expect(refusal(twice.flatMap((c) => ['--health-check', c]))).toBe(
      '--health-check names lock:deploy/production twice: one check per resource.',
    );
    expect(refusal(['--health-check', 'nourl'])).toMatch(/^Invalid --health-check 'nourl'\./);
    expect(refusal(['--health-interval-ms', '99'])).toBe(
      "Invalid --health-interval-ms '99'. Expected milliseconds from 100 to 3600000.",
    );
    expect(refusal(['--health-freeze-held'])).toBe(
      '--health-freeze-held needs a --health-check RESOURCE=URL.',
    );
  });

  it('takes --promote steps, and GitHub only with them', () => {
    const promote = ['--promote', 'staging->production'];
    expect([...(settings(promote).promote ?? [])]).toEqual([
      ['lock:deploy/production', 'lock:deploy/staging'],
    ]);
    expect(refusal(['--promote', 'staging'])).toMatch(/^Invalid --promote 'staging'\. Expected/);
    expect(settings([...promote, '--github-token-file', '/nowhere/t']).github).toEqual({
      tokenFile: '/nowhere/t',
      apiUrl: 'https://api.github.com',
    });
    expect(refusal(['--github-api-url', 'https://ghe.example/api/v3'])).toBe(
      '--github-api-url needs --github-token-file FILE.',
    );
    expect(refusal(['--github-token-file', '/nowhere/t'])).toBe(
      '--github-token-file is for the promotion order: give it with --promote FROM->TO.',
    );
    expect(
      refusal([...promote, '--github-token-file', '/t', '--github-api-url', 'http://gh.example']),
    ).toMatch(/^Invalid --github-api-url 'http:\/\/gh\.example\/?'\. Expected an https:\/\/ URL/);
  });
});

describe('kernelSettings: where the log lives', () => {
  it('keeps the log beside --data-prefix, or at --ledger', () => {
    expect(settings(['--data-prefix', '/var/k']).logFile).toBe('/var/k.ledger.jsonl');
    expect(settings(['--data-prefix', '/var/k', '--ledger', '/l.jsonl']).logFile).toBe('/l.jsonl');
  });

  it('takes --state, the old name, with a warning; not beside --data-prefix', () => {
    const got = settings(['--state', '/var/k']);
    expect(got.logFile).toBe('/var/k.ledger.jsonl');
    expect(got.warnings).toEqual([
      'lease-gate kernel: --state is now --data-prefix (the log is /var/k.ledger.jsonl); the old name will go in a later major release.',
    ]);
    expect(refusal(['--state', '/a', '--data-prefix', '/b'])).toBe(
      'Give --data-prefix only: --state is its old name.',
    );
  });

  it('reads DATABASE_URL only for --store postgres, and LEASE_GATE_PG_SCHEMA for the schema', () => {
    const store = ['--store', 'postgres', '--signing-key', '/nowhere/k.pem'];
    const url = 'postgres://u@127.0.0.1:5432/test';
    expect(settings([], { DATABASE_URL: url }).postgres).toBeUndefined();
    expect(settings(store, { DATABASE_URL: url }).postgres).toEqual({
      url,
      schema: 'public',
      poolSize: 10,
    });
    const env = { DATABASE_URL: url, LEASE_GATE_PG_SCHEMA: 'gate' };
    expect(settings([...store, '--pool-size', '2'], env).postgres).toEqual({
      url,
      schema: 'gate',
      poolSize: 2,
    });
    expect(refusal(store)).toBe(
      '--store postgres reads its URL from DATABASE_URL, which is not set.',
    );
  });

  it('refuses what --store postgres cannot take', () => {
    const url = 'postgres://u@127.0.0.1:5432/test';
    const signed = ['--signing-key', '/nowhere/k.pem'];
    expect(refusal(['--schema', 'gate'])).toBe(
      '--schema and --pool-size go with --store postgres.',
    );
    expect(refusal(['--store', 'mysql://x'])).toMatch(/^Invalid --store\. Expected 'memory'/);
    expect(refusal(['--store', url, '--schema', 'Bad-Name', ...signed])).toMatch(
      /^Invalid --schema 'Bad-Name'\./,
    );
    expect(refusal(['--store', url, '--pool-size', '1', ...signed])).toBe(
      "Invalid --pool-size '1'. Expected a whole number from 2 to 100.",
    );
    expect(refusal(['--store', url, '--data-prefix', '/k', ...signed])).toBe(
      '--store postgres keeps the log in the database: drop --data-prefix and --ledger.',
    );
    expect(refusal(['--store', url])).toBe(
      '--store postgres needs --signing-key FILE: every replica signs the shared ledger with the same key.',
    );
  });
});

describe('kernelSettings: --log-format and LEASE_GATE_LOG_FORMAT', () => {
  it('takes text or json, the flag over the environment', () => {
    expect(settings(['--log-format', 'json']).logFormat).toBe('json');
    expect(settings([], { LEASE_GATE_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(settings(['--log-format', 'text'], { LEASE_GATE_LOG_FORMAT: 'json' }).logFormat).toBe(
      'text',
    );
    expect(settings([], { LEASE_GATE_LOG_FORMAT: '' }).logFormat).toBe('text');
  });

  it('refuses any other form, naming where it came from', () => {
    const form =
      "Expected 'text' (lines for people, the default) or 'json' (one JSON object a line).";
    expect(refusal(['--log-format', 'JSON'])).toBe(`Invalid --log-format 'JSON'. ${form}`);
    expect(refusal([], { LEASE_GATE_LOG_FORMAT: 'logfmt' })).toBe(
      `Invalid LEASE_GATE_LOG_FORMAT 'logfmt'. ${form}`,
    );
    // A value from outside is shown one line, bounded.
    expect(refusal(['--log-format', 'a\nb'])).toBe(`Invalid --log-format 'a%0Ab'. ${form}`);
  });
});
