/**
 * The operator's credentials, checked in one place: the Bearer comparison, the admin key
 * every lever (revoke, freeze, unfreeze, break-glass) needs, the second approver's key or
 * OIDC identity, and who may read why the kernel is not ready. Every route takes its check
 * from here, so a lever cannot drift to a check of its own.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  APPROVE_BREAK_GLASS_PATH,
  BREAK_GLASS_PATH,
  FREEZE_PATH,
  REVOKE_PATH,
  UNFREEZE_PATH,
  WITHDRAW_BREAK_GLASS_PATH,
} from '../../plane/schema.js';
import type { Authorizer } from '../auth/authorize.js';
import { anyOf } from '../auth/glob.js';
import { ApiRefusal, type AppRequest } from './api.js';

/** Routes that take the admin key instead of the kernel's key. */
export const ADMIN_PATHS: ReadonlySet<string> = new Set([
  REVOKE_PATH,
  FREEZE_PATH,
  UNFREEZE_PATH,
  BREAK_GLASS_PATH,
  APPROVE_BREAK_GLASS_PATH,
  WITHDRAW_BREAK_GLASS_PATH,
]);

/**
 * Who approved: the approver key's holder (who names itself in `by`), or an OIDC identity
 * (`oidc:<sub>`, from the verified token), whose repository's DIDs start with `repoPrefix`.
 */
export type Approver =
  | { kind: 'key' }
  /** `approval`: the token's run and attempt, which approves one pass only. */
  | { kind: 'oidc'; by: string; repoPrefix: string; approval: string };

/**
 * How a lever names itself when it is refused. Revoking kept its own words and reason
 * (`revoke_disabled`) from before the other levers existed; clients match on them.
 */
export interface Lever {
  /** The sentence's subject: "Revoking needs …". */
  doing: string;
  /** The answer's `reason` when the kernel has no admin key. */
  disabled: string;
}

const ANY_LEVER: Lever = { doing: 'This', disabled: 'admin_disabled' };

export interface OperatorChecks {
  /** Throws 403 unless the request carries the admin key; levers are off without one. */
  requireAdmin(req: AppRequest, lever?: Lever): void;
  /** The second approver's check; undefined when the kernel has none (no approval step). */
  requireApprover: ((req: AppRequest) => Promise<Approver>) | undefined;
  /** Whether the caller may read why the kernel is not ready and the notifier's failures. */
  mayReadHealth(req: AppRequest): Promise<boolean>;
}

export interface OperatorKeys {
  adminKey?: string | undefined;
  approverKey?: string | undefined;
  approverOidc?: readonly string[] | undefined;
}

export function operatorChecks(keys: OperatorKeys, auth: Authorizer): OperatorChecks {
  const { adminKey } = keys;
  return {
    requireAdmin: (req, lever = ANY_LEVER) => requireAdmin(req, adminKey, lever),
    requireApprover: approverCheck(keys.approverKey, keys.approverOidc, auth),
    /**
     * `/readyz` answers anyone (a load balancer, a probe by address), but why it
     * is not ready (the store's error) and the notifier's failures (URLs' origins,
     * resource names) only the operator: the admin key or the kernel's shared key
     * (or anyone, on a keyless kernel). Not a scoped key or an OIDC token: any
     * repository's run gets a token that verifies, whether or not the policy lets
     * it lease anything.
     */
    mayReadHealth: async (req) => {
      if (adminKey && bearerMatches(req.headers.authorization, adminKey)) return true;
      // Any failure to name the caller (a refused token, an issuer not reached) tells no more.
      return auth.authorize(req.headers).then(
        (principal) => principal.kind === 'shared-key' || principal.kind === 'open',
        () => false,
      );
    },
  };
}

/** The operator's levers need the admin key; they are off without one. */
function requireAdmin(req: AppRequest, adminKey: string | undefined, lever: Lever): void {
  if (!adminKey) {
    throw new ApiRefusal(
      `${lever.doing} needs the kernel to be started with LEASE_GATE_ADMIN_KEY.`,
      {
        status: 403,
        reason: lever.disabled,
      },
    );
  }
  if (!bearerMatches(req.headers.authorization, adminKey)) {
    throw new ApiRefusal(
      `${lever.doing} needs the admin key (LEASE_GATE_ADMIN_KEY) as the Bearer token.`,
      { status: 403, reason: 'forbidden' },
    );
  }
}

/**
 * The second operator's approval needs its own credential, so the admin key alone cannot do
 * both halves: the approver key, or an OIDC token (verified as every token is) whose `sub`
 * matches `--approver-oidc`; then the token, not the body, names the approver.
 */
function approverCheck(
  approverKey: string | undefined,
  patterns: readonly string[] | undefined,
  auth: Authorizer,
): ((req: AppRequest) => Promise<Approver>) | undefined {
  if (approverKey === undefined && !patterns?.length) return undefined;
  const matches = patterns?.length ? anyOf(patterns) : undefined;
  const needs = [
    ...(approverKey !== undefined ? ['the approver key (LEASE_GATE_APPROVER_KEY)'] : []),
    ...(patterns?.length ? [`an OIDC token whose sub matches ${patterns.join(' or ')}`] : []),
  ].join(' or ');
  return async (req) => {
    const header = req.headers.authorization;
    if (approverKey !== undefined && bearerMatches(header, approverKey)) return { kind: 'key' };
    const bearer = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (matches && JWT_SHAPE.test(bearer)) {
      // A bad, expired or foreign token is refused 401 here, as on every other route.
      const principal = await auth.authorize(req.headers);
      if (principal.kind === 'oidc') {
        // Approvers are GitHub runs only: the pass they approve is keyed by a repository's
        // runs (repoPrefixOf), which other CIs' DIDs do not have (docs/ci-issuers.md).
        if (principal.issuer.kind !== 'github') {
          throw new ApiRefusal(
            `A ${principal.issuer.kind} job's token (issuer ${principal.issuer.name}) may not approve a break-glass: OIDC approvers are GitHub Actions runs; approving needs ${needs} as the Bearer token.`,
            { status: 403, reason: 'forbidden' },
          );
        }
        const sub = principal.claims.sub;
        const printable = typeof sub === 'string' && SUB_PATTERN.test(sub);
        if (printable && matches(sub))
          return {
            kind: 'oidc',
            by: `oidc:${sub}`,
            repoPrefix: repoPrefixOf(principal.run.didPrefix),
            // The run's attempt, which approves one pass: its DID prefix without the last colon.
            approval: principal.run.didPrefix.slice(0, -1),
          };
        // Only a printable sub is quoted back: the message reaches terminals and logs.
        const whose = printable ? `This token's sub (${sub})` : 'A token without a printable sub';
        throw new ApiRefusal(
          `${whose} may not approve a break-glass: approving needs ${needs} as the Bearer token.`,
          { status: 403, reason: 'forbidden' },
        );
      }
    }
    throw new ApiRefusal(`Approving a break-glass needs ${needs} as the Bearer token.`, {
      status: 403,
      reason: 'forbidden',
    });
  };
}

/**
 * `did:web:<host>:<owner>:<repo>:` from a run's DID prefix: every run and attempt of the
 * repository shares it, so a re-run cannot approve the pass its first attempt was given.
 */
function repoPrefixOf(didPrefix: string): string {
  return didPrefix.slice(0, didPrefix.indexOf(':actions:runs:') + 1);
}
/** Three base64url parts: what a JWS in compact form looks like. */
const JWT_SHAPE = /^[\w-]+\.[\w-]*\.[\w-]*$/;
/** A `sub` the ledger may name: printable, bounded (GitHub's are `repo:OWNER/REPO:…`). */
const SUB_PATTERN = /^[\x21-\x7e]{1,256}$/;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares in constant time (over digests, so lengths do not leak either). */
export function bearerMatches(header: string | undefined, key: string): boolean {
  const value = header ?? '';
  const token = value.startsWith('Bearer ') ? value.slice(7) : '';
  return timingSafeEqual(digest(token), digest(key)) && token.length > 0;
}
