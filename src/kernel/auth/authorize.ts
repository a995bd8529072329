import { createHash, timingSafeEqual } from 'node:crypto';
import type { Deploy } from '../../plane/deploy.js';
import { deployOfRun } from './deploy-claims.js';
import type { RunIdentity } from './identity.js';
import { issuerSet, type IssuerSet, type OidcIssuer } from './issuers.js';
import type { IssuerRef } from './mappings.js';
import type { ScopedKey, ScopedKeys } from './keys.js';
import type { OidcClaims, OidcVerifier } from './oidc.js';
import type { Policy } from './policy.js';
import { AuthRefusal } from './refusal.js';

/**
 * Who is calling, and may it do this. The app calls `authorize` once per
 * request before its route; every route that takes an `actorDid` then calls
 * `mayActAs` with the principal, before it changes or waits on anything.
 */

export type Principal =
  /** No credential configured: a keyless kernel on loopback (dry runs, demos). */
  | { kind: 'open' }
  /** The one shared key: everyone who has it is trusted to be anyone. */
  | { kind: 'shared-key' }
  | { kind: 'scoped-key'; key: ScopedKey }
  /** A CI job's verified token: its issuer, claims and the job (DID prefix) they name. */
  | { kind: 'oidc'; claims: OidcClaims; run: RunIdentity; issuer: IssuerRef };

/**
 * OIDC: several issuers (kernel-auth.ts builds them from the flags or issuers file), or
 * one GitHub-kind issuer as `{ verifier, didHost }`, as the tests and older callers say it.
 */
export type OidcAuth =
  | { issuers: IssuerSet; policy: Policy }
  | { verifier: OidcVerifier; didHost: string; policy: Policy };

export interface AuthOptions {
  /** The shared key (LEASE_GATE_KERNEL_KEY): everyone trusted. */
  key?: string | undefined;
  keys?: ScopedKeys | undefined;
  oidc?: OidcAuth | undefined;
}

/** What a route is about to do as whom. */
export interface Act {
  action: 'lease' | 'release' | 'watch';
  resource: string;
  actorDid: string;
}

export interface Authorizer {
  /** True when calls need a credential at all. */
  readonly required: boolean;
  /** The caller behind the request's Bearer credential; throws a 401 refusal. */
  authorize(headers: Record<string, string | undefined>): Promise<Principal>;
  /** Throws `403 not_your_did` or `not_allowed` unless `principal` may do `act`. */
  mayActAs(principal: Principal, act: Act): void;
  /**
   * The deploy fields to record for a lease: with an OIDC token, checked against and
   * completed from its claims (throws `403 not_your_deploy`, deploy-claims.ts); with a
   * key, or none, as sent: whoever holds the key is trusted to name any deploy.
   * `vouched`: the resource is in the promotion order, where a commit counts only when
   * the token vouches for it (a pull request run's too).
   */
  deployOf(principal: Principal, deploy: Deploy | undefined, vouched?: boolean): Deploy | undefined;
}

const OPEN: Principal = { kind: 'open' };
const SHARED: Principal = { kind: 'shared-key' };
const digest = (value: string) => createHash('sha256').update(value).digest();
/** Three base64url parts: what a JWS in compact form looks like. */
const JWT_SHAPE = /^[\w-]+\.[\w-]*\.[\w-]*$/;

/** One GitHub-kind issuer named github, for the `{ verifier, didHost }` form. */
function setOf(oidc: OidcAuth): IssuerSet {
  if ('issuers' in oidc) return oidc.issuers;
  const { verifier, didHost } = oidc;
  const github: OidcIssuer = {
    ...{ name: 'github', kind: 'github', url: verifier.issuer, audience: '', didHost },
    ...{ repositories: new Map(), verifier },
  };
  return issuerSet([github]);
}

export function createAuthorizer(options: AuthOptions): Authorizer {
  const { key, keys, oidc } = options;
  const issuers = oidc ? setOf(oidc) : undefined;
  const byName = new Map(issuers?.issuers.map((i) => [i.name, i]));
  const required = Boolean(key || keys || oidc);
  const keyDigest = key ? digest(key) : undefined;

  async function authorize(headers: Record<string, string | undefined>): Promise<Principal> {
    if (!required) return OPEN;
    const header = headers.authorization ?? '';
    const bearer = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (bearer) {
      // Compared in constant time, over digests so that lengths do not leak either.
      if (keyDigest && timingSafeEqual(digest(bearer), keyDigest)) return SHARED;
      const scoped = keys?.find(bearer);
      if (scoped) return { kind: 'scoped-key', key: scoped };
      if (issuers && bearer.length <= 16_384 && JWT_SHAPE.test(bearer)) {
        const { claims, run } = await issuers.verify(bearer);
        return { kind: 'oidc', claims, run, issuer: run.issuer };
      }
    }
    throw new AuthRefusal(expected(options, issuers), { status: 401, reason: 'unauthorized' });
  }

  function mayActAs(principal: Principal, act: Act): void {
    if (principal.kind === 'oidc') {
      const { run } = principal;
      if (!act.actorDid.startsWith(run.didPrefix)) {
        throw new AuthRefusal(
          `This token is ${run.described}: it may act only as DIDs under ${run.didPrefix}, not as ${act.actorDid}.`,
          { status: 403, reason: 'not_your_did' },
        );
      }
      if (act.action === 'lease')
        oidc?.policy.check(principal.claims, act.resource, principal.issuer);
      return;
    }
    if (principal.kind === 'scoped-key') {
      const scoped = principal.key;
      if (!scoped.actors(act.actorDid)) {
        throw new AuthRefusal(
          `Key "${scoped.name}" may act only as ${scoped.actorPatterns.join(' or ')}, not as ${act.actorDid}.`,
          { status: 403, reason: 'not_your_did' },
        );
      }
      if (act.action === 'lease' && !scoped.resources(act.resource)) {
        throw new AuthRefusal(
          `Key "${scoped.name}" may lease only ${scoped.resourcePatterns.join(' or ')}, not ${act.resource}.`,
          { status: 403, reason: 'not_allowed' },
        );
      }
    }
    // 'open' and 'shared-key': everyone is trusted to be anyone.
  }

  function deployOf(
    principal: Principal,
    deploy: Deploy | undefined,
    vouched = false,
  ): Deploy | undefined {
    const issuer = principal.kind === 'oidc' ? byName.get(principal.issuer.name) : undefined;
    if (principal.kind !== 'oidc' || !issuer) return deploy;
    return deployOfRun(deploy, principal.claims, principal.run, issuer, vouched);
  }

  return { required, authorize, mayActAs, deployOf };
}

function expected(options: AuthOptions, issuers: IssuerSet | undefined): string {
  const ways = [
    options.key ? 'its key (LEASE_GATE_KERNEL_KEY)' : '',
    options.keys ? 'a key from its keys file' : '',
    issuers ? `an OIDC ID token from ${issuers.issuers.map((i) => i.url).join(' or ')}` : '',
  ].filter(Boolean);
  return `This kernel needs ${ways.join(' or ')} as a Bearer token.`;
}
