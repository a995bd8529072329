import { createLocalJWKSet } from 'jose';
import * as z from 'zod/mini';
import type { HttpClient } from '../../http/client.js';
import { urlForDisplay } from '../../http/url-display.js';
import { isLoopbackHost } from '../../plane/url.js';
import { causeText } from '../../errors.js';
import { AuthRefusal } from './refusal.js';

/**
 * An OIDC issuer's published keys, as the verifier (oidc.ts) uses them: the discovery
 * document, then the JWKS, fetched through our one HTTP client; fetched again when older
 * than `cacheMs`, never twice within `minRefreshMs` (failed attempts included), and kept
 * through an outage only until `maxStaleMs` after the last good fetch. Its own module so
 * the verifier holds only the token checks.
 */

/** Discovery and JWKS bodies past this are refused (GitHub's JWKS is ~2 KB). */
const MAX_DOCUMENT_CHARS = 64 * 1024;
const MAX_KEYS = 50;

const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.string() });
const jwksSchema = z.object({
  keys: z.array(z.record(z.string(), z.unknown())).check(z.maxLength(MAX_KEYS)),
});

export type KeySet = ReturnType<typeof createLocalJWKSet>;

export interface IssuerKeySettings {
  http: HttpClient;
  /** Epoch milliseconds. */
  now: () => number;
  minRefreshMs: number;
  cacheMs: number;
  maxStaleMs: number;
}

/** An issuer URL we may fetch from: https, or plain http on loopback; no credentials, query or fragment. */
export function checkIssuerUrl(value: string, what = 'issuer'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`the OIDC ${what} '${urlForDisplay(value)}' is not a URL`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(host));
  if (!secure || url.username || url.password || url.search || url.hash) {
    throw new Error(
      `the OIDC ${what} '${urlForDisplay(value)}' must be an https:// URL without credentials or query (plain http:// only on loopback)`,
    );
  }
  return url;
}

/** Fetches of every issuer's keys in this process, and those that failed: the metrics read it. */
export const oidcKeyFetches = { attempts: 0, failures: 0 };

export class IssuerKeys {
  private keys: KeySet | undefined;
  /** When the keys in use were fetched. */
  private keysAt = -Infinity;
  /** When the last fetch began, whether or not it succeeded; and why the last one failed. */
  private attemptedAt = -Infinity;
  private failure: unknown;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly issuer: string,
    private readonly settings: IssuerKeySettings,
  ) {}

  /** Why the last fetch failed; undefined once one succeeded. */
  get lastError(): unknown {
    return this.failure;
  }

  /** Whether a fetch may begin now: none within `minRefreshMs` of the last attempt. */
  get mayRefresh(): boolean {
    return this.settings.now() - this.attemptedAt >= this.settings.minRefreshMs;
  }

  /** One fetch at a time, later callers share it; none within `minRefreshMs` of the last attempt. */
  async refresh(): Promise<void> {
    if (!this.inFlight && !this.mayRefresh) return;
    this.inFlight ??= this.fetchKeys()
      .then(() => (this.failure = undefined))
      .catch((error: unknown) => {
        oidcKeyFetches.failures += 1;
        this.failure = error;
      })
      .finally(() => (this.inFlight = undefined));
    await this.inFlight;
  }

  /** The keys to verify with now: fetched again when old; 503 when there are none fit to use. */
  async keySet(): Promise<KeySet> {
    const { now, cacheMs, maxStaleMs } = this.settings;
    if (!this.keys || now() - this.keysAt > cacheMs) await this.refresh();
    // A failed refresh keeps the keys we had, for a bounded time; without any, nothing verifies.
    if (this.keys && now() - this.keysAt <= maxStaleMs) return this.keys;
    throw unavailable(this.failure ?? new Error('no keys fetched yet'));
  }

  private async fetchKeys(): Promise<void> {
    oidcKeyFetches.attempts += 1;
    this.attemptedAt = this.settings.now();
    const { issuer } = this;
    const discovery = discoverySchema.safeParse(
      await this.getJson(`${issuer}/.well-known/openid-configuration`, 'discovery document'),
    );
    if (!discovery.success || discovery.data.issuer.replace(/\/+$/, '') !== issuer) {
      throw new Error(`the issuer's discovery document does not name ${issuer} with a jwks_uri`);
    }
    const jwksUrl = checkIssuerUrl(discovery.data.jwks_uri, 'jwks_uri');
    const jwks = jwksSchema.safeParse(await this.getJson(jwksUrl.href, 'JWKS'));
    if (!jwks.success)
      throw new Error(`the issuer's JWKS is not a set of at most ${MAX_KEYS} keys`);
    this.keys = createLocalJWKSet(jwks.data);
    this.keysAt = this.attemptedAt;
  }

  private async getJson(url: string, what: string): Promise<unknown> {
    const text = await this.settings.http.getText(url, { accept: 'application/json' });
    if (text.length > MAX_DOCUMENT_CHARS) throw new Error(`the issuer's ${what} is too large`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`the issuer's ${what} is not JSON`);
    }
  }
}

/** The issuer's keys cannot be had: 503, so a caller tries again rather than give up. */
export function unavailable(error: unknown): AuthRefusal {
  const text = causeText(error);
  return new AuthRefusal(
    `The kernel cannot fetch the OIDC issuer's keys (${text.slice(0, 300)}); try again.`,
    { status: 503, reason: 'issuer_unavailable', cause: error },
  );
}
