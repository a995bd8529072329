import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import type { HttpClient } from '../../src/http/client.js';
import { createOidcVerifier } from '../../src/kernel/auth/oidc.js';
import { compilePolicy } from '../../src/kernel/auth/policy.js';

/**
 * A fake OIDC issuer on loopback, shaped like GitHub Actions': its own signing
 * keys (rotatable), the discovery document and JWKS, and the runner's token
 * request service as `@actions/core`'s getIDToken calls it
 * (GET `$ACTIONS_ID_TOKEN_REQUEST_URL&audience=AUD` with
 * `Authorization: Bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN`, answering `{ value }`).
 */

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  jwk: JWK;
}

/** The claims GitHub puts in a job's token, for run 4242 attempt 1 of acme/shop on main in production. */
export const RUN_CLAIMS = {
  sub: 'repo:acme/shop:environment:production',
  repository: 'acme/shop',
  repository_owner: 'acme',
  repository_id: '1',
  repository_owner_id: '2',
  ref: 'refs/heads/main',
  ref_type: 'branch',
  environment: 'production',
  job_workflow_ref: 'acme/shop/.github/workflows/deploy.yml@refs/heads/main',
  workflow_ref: 'acme/shop/.github/workflows/deploy.yml@refs/heads/main',
  event_name: 'push',
  run_id: '4242',
  run_number: '7',
  run_attempt: '1',
  actor: 'octocat',
};

export interface TokenOptions {
  claims?: Record<string, unknown>;
  audience?: string;
  issuer?: string;
  /** Seconds from now (negative: in the past). */
  expiresInS?: number;
  notBeforeInS?: number;
  issuedAtInS?: number;
  /** Sign with this key instead of the current one (one the JWKS does not publish, say). */
  key?: SigningKey;
}

export interface FakeIssuer {
  url: string;
  /** The token service's URL and bearer, as the runner sets them. */
  requestEnv: (claims?: Record<string, unknown>) => Record<string, string>;
  current: SigningKey;
  sign(options?: TokenOptions): Promise<string>;
  /** A new signing key; the old one stays published unless `dropOld`. */
  rotate(dropOld?: boolean): Promise<SigningKey>;
  /** A key pair the JWKS does not publish. */
  stranger(): Promise<SigningKey>;
  /** Requests served, by path. */
  hits: Record<string, number>;
  /** While true, every route answers 503 (an issuer that is down); hits still count. */
  down: boolean;
  /** Tokens the token service handed out. */
  issued: string[];
  close(): Promise<void>;
}

let kids = 0;
export async function newSigningKey(alg: 'RS256' | 'ES256' = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const kid = `key-${(kids += 1)}`;
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface FakeIssuerOptions {
  now?: () => number;
  tokenLifetimeS?: number;
  /** The issuer URL's path after the origin (CircleCI's `/org/<org-id>`); none by default. */
  path?: string;
  /** The claims every token carries unless a sign call overrides them (GitHub's run by default). */
  claims?: Record<string, unknown>;
  /** The audience of tokens signed without one (`lease-gate` by default). */
  audience?: string;
}

export async function startFakeIssuer(options: FakeIssuerOptions = {}): Promise<FakeIssuer> {
  const now = options.now ?? Date.now;
  const base = options.claims ?? RUN_CLAIMS;
  const prefix = (options.path ?? '').replace(/\/+$/, '');
  const published: SigningKey[] = [await newSigningKey()];
  const hits: Record<string, number> = {};
  const issued: string[] = [];
  // Each request token stands for one run's claims.
  const runs = new Map<string, Record<string, unknown>>();
  let url = '';

  const server: Server = createServer((req, res) => {
    const parsed = new URL(req.url ?? '/', 'http://x');
    hits[parsed.pathname] = (hits[parsed.pathname] ?? 0) + 1;
    // Routes live under the issuer's path, as discovery is `<issuer>/.well-known/...`.
    const route = parsed.pathname.startsWith(`${prefix}/`)
      ? parsed.pathname.slice(prefix.length)
      : '';
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (issuer.down) return json(503, { message: 'the issuer is down' });
    if (route === '/.well-known/openid-configuration') {
      return json(200, { issuer: url, jwks_uri: `${url}/.well-known/jwks` });
    }
    if (route === '/.well-known/jwks') {
      return json(200, { keys: published.map((k) => k.jwk) });
    }
    if (route === '/_apis/token') {
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const claims = runs.get(bearer);
      const audience = parsed.searchParams.get('audience');
      if (!claims) return json(401, { message: 'bad request token' });
      if (parsed.searchParams.get('api-version') !== '2.0' || !audience) {
        return json(400, { message: 'expected api-version=2.0 and an audience' });
      }
      void issuer
        .sign({ claims, audience, expiresInS: options.tokenLifetimeS ?? 300 })
        .then((value) => {
          issued.push(value);
          json(200, { count: 1, value });
        });
      return;
    }
    json(404, { message: 'no such route' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;

  const issuer: FakeIssuer = {
    url,
    hits,
    down: false,
    issued,
    get current() {
      return published.at(-1)!;
    },
    requestEnv(claims = base) {
      const token = `request-token-${runs.size + 1}`;
      runs.set(token, claims);
      return {
        ACTIONS_ID_TOKEN_REQUEST_URL: `${url}/_apis/token?api-version=2.0`,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: token,
      };
    },
    async sign(o = {}) {
      const key = o.key ?? issuer.current;
      const t = Math.floor(now() / 1000);
      return new SignJWT({ ...base, ...o.claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
        .setIssuer(o.issuer ?? url)
        .setAudience(o.audience ?? options.audience ?? 'lease-gate')
        .setIssuedAt(t + (o.issuedAtInS ?? 0))
        .setNotBefore(t + (o.notBeforeInS ?? 0))
        .setExpirationTime(t + (o.expiresInS ?? 300))
        .sign(key.privateKey);
    },
    async rotate(dropOld = false) {
      const key = await newSigningKey();
      if (dropOld) published.splice(0, published.length);
      published.push(key);
      return key;
    },
    stranger: () => newSigningKey(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return issuer;
}

/** A compact JWS with the given header and payload and no valid signature (`alg: none`, forged HMAC). */
export function unsignedToken(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  signature = '',
): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(payload)}.${signature}`;
}

/**
 * The OIDC set-up most kernel tests use: tokens of `issuerUrl` for the `lease-gate`
 * audience, and a policy letting runs of the acme organisation take `resources`; for
 * `createAuthorizer({ oidc })`.
 */
export function acmeOidc(issuerUrl: string, http: HttpClient, resources = ['lock:*']) {
  const verifier = createOidcVerifier({ issuer: issuerUrl, audience: 'lease-gate', http });
  const policy = compilePolicy({
    rules: [{ name: 'acme', resources, claims: { repository_owner: 'acme' } }],
  });
  return { verifier, didHost: 'github.com', policy };
}
