import * as z from 'zod/mini';
import '../../zod-en.js';
import { anyOf, type Matcher } from './glob.js';
import { entryPath, readJsonFile } from './file.js';
import type { OidcClaims } from './oidc.js';
import { AuthRefusal } from './refusal.js';

/**
 * The policy file (`--policy FILE`, JSON): which OIDC token claims may lease
 * which resources. A resource may be leased when some rule whose `resources`
 * match it has every one of its `claims` matched by the token; a resource no
 * rule names is refused. Patterns are globs (`*`, `?`).
 *
 *   { "rules": [ { "name": "production from main",
 *                  "resources": ["lock:deploy/production"],
 *                  "claims": { "repository": "acme/shop", "ref": "refs/heads/main",
 *                              "environment": "production" } } ] }
 */

/** The claims of GitHub's tokens a rule may test; anything else is a typo, refused at start. */
export const POLICY_CLAIMS = [
  'sub',
  'repository',
  'repository_owner',
  'repository_id',
  'repository_owner_id',
  'repository_visibility',
  'ref',
  'ref_type',
  'ref_protected',
  'environment',
  'job_workflow_ref',
  'workflow_ref',
  'workflow',
  'event_name',
  'actor',
  'actor_id',
  'runner_environment',
  'base_ref',
  'head_ref',
] as const;

const text = z.string().check(z.minLength(1), z.maxLength(500));
const patterns = z.union([text, z.array(text).check(z.minLength(1), z.maxLength(100))]);
const claimsSchema = z.partialRecord(z.enum(POLICY_CLAIMS), patterns);
const ruleSchema = z.strictObject({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  resources: z.array(text).check(z.minLength(1), z.maxLength(100)),
  claims: claimsSchema.check(
    z.refine((c) => Object.keys(c).length > 0, 'a rule needs at least one claim'),
  ),
});
const policySchema = z.strictObject({
  rules: z.array(ruleSchema).check(z.minLength(1), z.maxLength(1_000)),
});

interface Rule {
  name: string;
  index: number;
  resources: Matcher;
  claims: Array<{ claim: string; shown: string; match: Matcher }>;
}

export interface Policy {
  readonly rules: number;
  /** Throws `403 not_allowed` naming the rule unless some rule lets these claims lease `resource`. */
  check(claims: OidcClaims, resource: string): void;
}

const list = (value: string | string[]) => (typeof value === 'string' ? [value] : value);

export function readPolicy(file: string): Policy {
  const data = readJsonFile(file, policySchema, (path, raw) =>
    entryPath('rules', (raw as { rules?: unknown } | null)?.rules, path),
  );
  return compilePolicy(data);
}

export function compilePolicy(data: z.infer<typeof policySchema>): Policy {
  const rules: Rule[] = data.rules.map((rule, index) => ({
    name: rule.name,
    index,
    resources: anyOf(rule.resources),
    claims: Object.entries(rule.claims).map(([claim, value]) => ({
      claim,
      shown: list(value).join(' or '),
      match: anyOf(list(value)),
    })),
  }));
  return {
    rules: rules.length,
    check(claims, resource) {
      let refusedBy: { rule: Rule; claim: string; shown: string } | undefined;
      for (const rule of rules) {
        if (!rule.resources(resource)) continue;
        const failed = rule.claims.find((c) => !c.match(claimText(claims[c.claim])));
        if (!failed) return;
        refusedBy ??= { rule, claim: failed.claim, shown: failed.shown };
      }
      if (!refusedBy) {
        throw new AuthRefusal(`No rule of the kernel's policy lets anyone lease ${resource}.`, {
          status: 403,
          reason: 'not_allowed',
        });
      }
      const { rule, claim, shown } = refusedBy;
      const has = claimText(claims[claim]);
      throw new AuthRefusal(
        `Policy rule ${rule.index + 1} ("${rule.name}") lets ${resource} be leased only with ${claim} ${shown}; this token has ${claim} ${has ? JSON.stringify(has.slice(0, 200)) : '(none)'}.`,
        { status: 403, reason: 'not_allowed' },
      );
    },
  };
}

/** A claim as text for matching; absent or non-scalar claims match nothing but `*`. */
function claimText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : '';
}
