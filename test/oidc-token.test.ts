import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/http/client.js';
import {
  cachedToken,
  givenTokenSource,
  runnerTokenSource,
  tokenExpiryMs,
} from '../src/lease/oidc-token.js';
import { startFakeIssuer, type FakeIssuer } from './support/fake-oidc.js';

/** The client's side of OIDC: the runner's token service as getIDToken asks it, and refreshing before expiry. */

let issuer: FakeIssuer;
const http = createHttpClient();
beforeAll(async () => {
  issuer = await startFakeIssuer({ tokenLifetimeS: 300 });
});
afterAll(async () => {
  await http.close();
  await issuer.close();
});

describe('OIDC tokens on the client', () => {
  it("asks the runner's token service with the request token and the audience", async () => {
    const source = runnerTokenSource(issuer.requestEnv(), 'plane.example', http);
    const token = await source();
    expect(issuer.issued).toContain(token);
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
      aud: string;
    };
    expect(payload.aud).toBe('plane.example');
    const wrong = runnerTokenSource(
      { ...issuer.requestEnv(), ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'stolen' },
      'lease-gate',
      http,
    );
    await expect(wrong()).rejects.toThrow(/401/);
    expect(() => runnerTokenSource({}, 'lease-gate', http)).toThrow(/id-token: write/);
    expect(() =>
      runnerTokenSource(
        {
          ACTIONS_ID_TOKEN_REQUEST_URL: 'http://tokens.example/x?a=1',
          ACTIONS_ID_TOKEN_REQUEST_TOKEN: 't',
        },
        'lease-gate',
        http,
      ),
    ).toThrow(/https/);
  });

  it('keeps a token until two minutes before it expires, then asks for a fresh one', async () => {
    let now = Date.now();
    const source = runnerTokenSource(issuer.requestEnv(), 'lease-gate', http);
    let fetched = 0;
    const token = cachedToken(
      async () => ((fetched += 1), source()),
      () => now,
    );
    const first = await token();
    const exp = tokenExpiryMs(first)!;
    expect(exp).toBeGreaterThan(now);
    now = exp - 121_000;
    expect(await token()).toBe(first);
    expect(fetched).toBe(1);
    now = exp - 119_000;
    // (The fake issuer may sign the same claims within the same second: count the asks.)
    await token();
    expect(fetched).toBe(2);
  });

  it('reads a token file again on each refresh and refuses one that is not a JWT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-gate-token-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'aaa.bbb.ccc\n');
    const source = givenTokenSource(file, {});
    expect(await source()).toBe('aaa.bbb.ccc');
    writeFileSync(file, 'ddd.eee.fff');
    expect(await source()).toBe('ddd.eee.fff');
    writeFileSync(file, 'two words');
    await expect(source()).rejects.toThrow(/expected one compact JWT/);
    expect(() => givenTokenSource(join(dir, 'missing'), {})).toThrow(
      /Cannot read --oidc-token-file/,
    );
  });
});
