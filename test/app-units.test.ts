import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRule, loadConfig } from '../src/app/config.js';
import { runIdFromCallback } from '../src/app/events.js';
import { nextCursor, retryWait } from '../src/app/github.js';
import { SeenDeliveries, createReceiver, type Delivery } from '../src/app/receiver.js';
import { deriveActorDid } from '../src/lease/did.js';
import { appDid, mayTakeUp } from '../src/lease/take-up.js';

const RSA_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const EC_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

const RUN = {
  serverUrl: 'https://github.com',
  repository: 'acme/shop',
  runId: '101',
  runAttempt: '2',
  job: 'deploy',
};

describe('take-up', () => {
  const own = deriveActorDid(RUN, 'a1b2c3d4');
  it("takes up only the app's lease for its own run, attempt and job", () => {
    expect(mayTakeUp(own, appDid(RUN, 9001))).toBe(true);
    expect(mayTakeUp(own, appDid({ ...RUN, job: '*' }, 9001))).toBe(true);
    expect(mayTakeUp(own, appDid({ ...RUN, job: 'other' }, 9001))).toBe(false);
    expect(mayTakeUp(own, appDid({ ...RUN, runAttempt: '1' }, 9001))).toBe(false);
    expect(mayTakeUp(own, appDid({ ...RUN, runId: '102' }, 9001))).toBe(false);
    expect(mayTakeUp(own, appDid({ ...RUN, repository: 'acme/web' }, 9001))).toBe(false);
    // Another job of the same run, not the app: never taken over.
    expect(mayTakeUp(own, deriveActorDid(RUN, 'ffffffff'))).toBe(false);
    expect(mayTakeUp('did:web:example.com:me', appDid(RUN, 9001))).toBe(false);
  });
});

describe('config', () => {
  const write = (config: object) => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-app-config-'));
    writeFileSync(join(dir, 'key.pem'), RSA_KEY);
    writeFileSync(
      join(dir, 'garbage.pem'),
      '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n',
    );
    writeFileSync(join(dir, 'ec.pem'), EC_KEY);
    writeFileSync(join(dir, 'secret'), 's3cret\n');
    writeFileSync(join(dir, 'app.json'), JSON.stringify(config));
    return join(dir, 'app.json');
  };
  const good = {
    appId: 1,
    privateKeyFile: 'key.pem',
    webhookSecretFile: 'secret',
    plane: { url: 'http://127.0.0.1:8787' },
    rules: [
      { repository: 'acme/*', environment: 'production', resource: 'lock:deploy/production' },
    ],
  };

  it('reads a good config with its defaults and the secrets beside it', () => {
    const config = loadConfig(write(good), {});
    expect(config).toMatchObject({
      appId: '1',
      webhookSecret: 's3cret',
      takeUpGraceMs: 600_000,
      maxWaitMs: 21_600_000,
      port: 8790,
      path: '/',
    });
    expect(findRule(config.rules, 'ACME/shop', 'Production')?.resource).toBe(
      'lock:deploy/production',
    );
    expect(findRule(config.rules, 'acme/shop/x', 'production')).toBeUndefined();
    expect(findRule(config.rules, 'other/shop', 'production')).toBeUndefined();
  });

  it('names the field and the accepted form, and never shows a secret', () => {
    const cases: Array<[object, RegExp]> = [
      [
        { ...good, rules: [{ ...good.rules[0], resource: 'has space' }] },
        /field 'rules\[0\]\.resource'.*lock:deploy\/production/,
      ],
      [{ ...good, takeUpGrace: 'soon' }, /field 'takeUpGrace'.*duration/],
      [{ ...good, plane: { url: 'http://plane.example.com' } }, /field 'plane\.url'.*https:\/\//],
      [{ ...good, plane: { url: 'https://plane.example.com' } }, /field 'plane\.keyFile'/],
      [{ ...good, rules: [] }, /field 'rules'/],
      [{ ...good, webhookSecretFile: 'missing' }, /field 'webhookSecretFile'/],
    ];
    for (const [config, message] of cases) {
      expect(() => loadConfig(write(config), {})).toThrow(message);
    }
    expect(() => loadConfig(write({ ...good, privateKeyFile: 'secret' }), {})).toThrow(
      /^(?!.*s3cret).*not a PEM RSA private key/,
    );
  });

  it('takes appId as a number or a string of digits, and names the Client ID mistake', () => {
    expect(loadConfig(write({ ...good, appId: '123456' }), {}).appId).toBe('123456');
    expect(loadConfig(write({ ...good, appId: 123456 }), {}).appId).toBe('123456');
    expect(() => loadConfig(write({ ...good, appId: 'Iv1.8a61f9b3a7aba766' }), {})).toThrow(
      /field 'appId': expected the App ID \(a number, on the App's settings page under 'About'\), not its Client ID/,
    );
    for (const appId of ['0123', '12 34', -1, 1.5, '']) {
      expect(() => loadConfig(write({ ...good, appId }), {}), String(appId)).toThrow(
        /field 'appId': expected the App ID, a positive integer \(a number, or a string of digits/,
      );
    }
  });

  it('refuses a setting it does not know, naming it, at the top and inside an object', () => {
    expect(() => loadConfig(write({ ...good, takeUpGrase: '1m' }), {})).toThrow(
      /field 'takeUpGrase': not a setting of the app \(expected one of: .*takeUpGrace/,
    );
    expect(() =>
      loadConfig(write({ ...good, plane: { ...good.plane, keyfile: 'k' } }), {}),
    ).toThrow(/field 'plane\.keyfile': not a setting of the app \(expected one of: url, keyFile\)/);
    expect(() =>
      loadConfig(write({ ...good, rules: [{ ...good.rules[0], jobs: 'deploy' }] }), {}),
    ).toThrow(/field 'rules\[0\]\.jobs': not a setting of the app \(expected one of: repository/);
  });

  it('refuses a private key that does not parse, or is not RSA, without showing it', () => {
    expect(() => loadConfig(write({ ...good, privateKeyFile: 'garbage.pem' }), {})).toThrow(
      /^(?!.*\nx\n)Invalid config .*field 'privateKeyFile': garbage\.pem is not a PEM RSA private key/,
    );
    expect(() => loadConfig(write({ ...good, privateKeyFile: 'ec.pem' }), {})).toThrow(
      /field 'privateKeyFile': ec\.pem is not a PEM RSA private key/,
    );
  });
});

describe('GitHub answers', () => {
  const policy = { baseMs: 100, capMs: 1_000, maxAttempts: 5 };
  it('waits what a rate limit names, backs off on 5xx, and gives up on the rest', () => {
    const now = 1_700_000_000_000;
    expect(
      retryWait({ status: 429, headers: { 'retry-after': '3' } }, now, policy, 0, () => 0),
    ).toBe(3_000);
    expect(
      retryWait(
        {
          status: 403,
          headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 10) },
        },
        now,
        policy,
        0,
        () => 0,
      ),
    ).toBe(11_000);
    expect(retryWait({ status: 502, headers: {} }, now, policy, 1, () => 0)).toBe(100);
    expect(retryWait({ status: 403, headers: {} }, now, policy, 0, () => 0)).toBeUndefined();
    expect(retryWait({ status: 422, headers: {} }, now, policy, 0, () => 0)).toBeUndefined();
  });

  it('reads the run from the callback URL only when it names the payload repository', () => {
    const url = 'https://api.github.com/repos/acme/shop/actions/runs/42/deployment_protection_rule';
    expect(runIdFromCallback(url, 'acme/shop')).toBe('42');
    expect(runIdFromCallback(url, 'acme/web')).toBeUndefined();
    expect(
      runIdFromCallback(
        'https://api.github.com/repos/acme/shop/actions/runs/42/other',
        'acme/shop',
      ),
    ).toBeUndefined();
  });

  it("follows the Link header's next cursor, never its URL", () => {
    expect(
      nextCursor(
        '<https://api.github.com/app/hook/deliveries?per_page=100&cursor=v1_12>; rel="next", <https://api.github.com/app/hook/deliveries?per_page=100>; rel="first"',
      ),
    ).toBe('v1_12');
    expect(
      nextCursor('<https://api.github.com/app/hook/deliveries?per_page=100>; rel="first"'),
    ).toBeUndefined();
    expect(nextCursor(undefined)).toBeUndefined();
    expect(nextCursor('<not a url>; rel="next"')).toBeUndefined();
  });
});

describe('receiver', () => {
  it('remembers a bounded number of deliveries', () => {
    const seen = new SeenDeliveries(2);
    expect([seen.add('a'), seen.add('a'), seen.add('b'), seen.add('c'), seen.add('a')]).toEqual([
      true,
      false,
      true,
      true,
      true,
    ]);
  });

  it('refuses a body over the limit before checking anything else', async () => {
    const got: Delivery[] = [];
    const lines: string[] = [];
    const receive = createReceiver({
      secret: 's',
      path: '/',
      maxBodyBytes: 1_000,
      log: (l) => lines.push(l),
      onDelivery: async (d) => void got.push(d),
    });
    const server = createServer((req, res) => void receive(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const headers = {
      'x-github-event': 'ping',
      'x-github-delivery': 'd-1',
      'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
    };
    try {
      const big = await fetch(url, { method: 'POST', headers, body: 'x'.repeat(5_000) });
      expect(big.status).toBe(413);
      const unsigned = await fetch(url, {
        method: 'POST',
        headers: { 'x-github-event': 'ping', 'x-github-delivery': 'd-2' },
        body: '{}',
      });
      // Unsigned is unauthenticated: 401, as `lease-gate app --help` and the docs say.
      expect(unsigned.status).toBe(401);
      const bad = await fetch(url, { method: 'POST', headers, body: '{}' });
      expect(bad.status).toBe(401);
      expect(got).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
