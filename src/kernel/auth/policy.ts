import * as z from 'zod/mini';
import '../../zod-en.js';
import { GITHUB_ISSUER_URL } from './github-issuer.js';
import { anyOf, type Matcher } from './glob.js';
import { AuthFileError, entryPath, readJsonFile } from './file.js';
import type { IssuerSpec } from './issuer-config.js';
import { builtInRefusal, policyClaimsOf, PROTECTED_REF_KINDS, type IssuerRef } from './mappings.js';
import type { OidcClaims } from './oidc.js';
import { AuthRefusal } from './refusal.js';

export { POLICY_CLAIMS } from './policy-claims.js';

/**
 * The policy file (`--policy FILE`, JSON): which OIDC token claims may lease
 * which resources. A resource may be leased when some rule whose `resources`
 * match it, of the token's issuer, has every one of its `claims` matched by the
 * token and none of its refusals; a resource no rule names is refused. Patterns
 * are globs (`*`, `?`); a list claim (CircleCI's context-ids) matches when one
 * of its items does.
 *
 *   { "rules": [ { "name": "production from main", "issuer": "github",
 *                  "resources": ["lock:deploy/production"],
 *                  "claims": { "repository": "acme/shop", "ref": "refs/heads/main",
 *                              "environment": "production" },
 *                  "refuse": { "event_name": "pull_request*" } } ] }
 *
 * `issuer` names an issuer (its name or URL); with one issuer configured it may be left
 * out, with several it may not. `claims` and `refuse` may test only the claims of that
 * issuer's kind (mappings.ts), so a typo is refused at start. `protectedRef`: the token
 * must say its ref is protected (GitHub, GitLab). `allowForks`: lifts GitLab's built-in
 * refusal of a fork's merge-request pipelines.
 */

const text = z.string().check(z.minLength(1), z.maxLength(500));
const patterns = z.union([text, z.array(text).check(z.minLength(1), z.maxLength(100))]);
const claimsSchema = z.record(text, patterns);
const ruleSchema = z.strictObject({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  issuer: z.optional(text),
  resources: z.array(text).check(z.minLength(1), z.maxLength(100)),
  claims: claimsSchema.check(
    z.refine((c) => Object.keys(c).length > 0, 'a rule needs at least one claim'),
  ),
  refuse: z.optional(claimsSchema),
  protectedRef: z.optional(z.boolean()),
  allowForks: z.optional(z.boolean()),
});
const policySchema = z.strictObject({
  rules: z.array(ruleSchema).check(z.minLength(1), z.maxLength(1_000)),
});
export type PolicyData = z.infer<typeof policySchema>;

interface Test {
  claim: string;
  shown: string;
  match: Matcher;
}

interface Rule {
  name: string;
  index: number;
  issuer: string;
  kind: IssuerSpec['kind'];
  resources: Matcher;
  claims: Test[];
  refuse: Test[];
  protectedRef: boolean;
  allowForks: boolean;
}

export interface Policy {
  readonly rules: number;
  /**
   * Throws `403 not_allowed` naming the rule unless some rule of `issuer` lets these
   * claims lease `resource` (`issuer` may be left out with one issuer configured).
   */
  check(claims: OidcClaims, resource: string, issuer?: IssuerRef): void;
}

const list = (value: string | string[]) => (typeof value === 'string' ? [value] : value);

/** The one issuer of a kernel started with only `--oidc-audience` (GitHub's). */
const GITHUB_ONLY: ReadonlyArray<Pick<IssuerSpec, 'name' | 'kind' | 'url' | 'claims'>> = [
  { name: 'github', kind: 'github', url: GITHUB_ISSUER_URL },
];

export function readPolicy(
  file: string,
  issuers: ReadonlyArray<Pick<IssuerSpec, 'name' | 'kind' | 'url' | 'claims'>> = GITHUB_ONLY,
): Policy {
  const data = readJsonFile(file, policySchema, (path, raw) =>
    entryPath('rules', (raw as { rules?: unknown } | null)?.rules, path),
  );
  return compilePolicy(data, issuers, file);
}

export function compilePolicy(
  data: PolicyData,
  issuers: ReadonlyArray<Pick<IssuerSpec, 'name' | 'kind' | 'url' | 'claims'>> = GITHUB_ONLY,
  where = 'the policy',
): Policy {
  const rules: Rule[] = data.rules.map((rule, index) => {
    const at = `${where}: rules[${index}] ("${rule.name.slice(0, 60)}")`;
    const issuer = issuerOfRule(rule.issuer, issuers, at);
    const tests = (claims: Record<string, string | string[]>, key: string) =>
      Object.entries(claims).map(([claim, value]) => {
        const known = policyClaimsOf(issuer);
        if (!known.includes(claim)) {
          throw new AuthFileError(
            `${at} ${key}.${claim}: not a claim a rule may test on ${issuer.kind} tokens; expected one of ${known.join(', ')}.`,
          );
        }
        return { claim, shown: list(value).join(' or '), match: anyOf(list(value)) };
      });
    if (rule.protectedRef && !PROTECTED_REF_KINDS.includes(issuer.kind)) {
      throw new AuthFileError(
        `${at} protectedRef: ${issuer.kind} tokens do not say whether a ref is protected (only ${PROTECTED_REF_KINDS.join(' and ')} tokens do).`,
      );
    }
    return {
      name: rule.name,
      index,
      issuer: issuer.name,
      kind: issuer.kind,
      resources: anyOf(rule.resources),
      claims: tests(rule.claims, 'claims'),
      refuse: tests(rule.refuse ?? {}, 'refuse'),
      protectedRef: rule.protectedRef ?? false,
      allowForks: rule.allowForks ?? false,
    };
  });
  return {
    rules: rules.length,
    check(claims, resource, issuer) {
      const name = issuer?.name ?? issuers[0]?.name;
      let refusedBy: string | undefined;
      for (const rule of rules) {
        if (rule.issuer !== name || !rule.resources(resource)) continue;
        const why = refusal(rule, claims, resource);
        if (why === undefined) return;
        refusedBy ??= why;
      }
      throw new AuthRefusal(
        refusedBy ??
          `No rule of the kernel's policy lets anyone${issuers.length > 1 ? ` with a token of issuer ${name}` : ''} lease ${resource}.`,
        { status: 403, reason: 'not_allowed' },
      );
    },
  };
}

/** The issuer a rule names (by name or URL), or the only one; refused at start otherwise. */
function issuerOfRule<T extends Pick<IssuerSpec, 'name' | 'url'>>(
  named: string | undefined,
  issuers: readonly T[],
  at: string,
): T {
  const names = issuers.map((i) => i.name).join(', ');
  if (named === undefined) {
    if (issuers.length === 1) return issuers[0]!;
    throw new AuthFileError(
      `${at}: with several issuers configured (${names}) every rule names its "issuer".`,
    );
  }
  const issuer = issuers.find((i) => i.name === named || i.url === named.replace(/\/+$/, ''));
  if (!issuer) {
    throw new AuthFileError(
      `${at} issuer: ${JSON.stringify(named.slice(0, 100))} is not a configured issuer; expected one of ${names}.`,
    );
  }
  return issuer;
}

/** Why `rule` does not let these claims lease `resource`, or undefined when it does. */
function refusal(rule: Rule, claims: OidcClaims, resource: string): string | undefined {
  const head = `Policy rule ${rule.index + 1} ("${rule.name}")`;
  const failed = rule.claims.find((c) => !claimTexts(claims[c.claim]).some((v) => c.match(v)));
  if (failed) {
    const has = claimTexts(claims[failed.claim]).join(', ');
    return `${head} lets ${resource} be leased only with ${failed.claim} ${failed.shown}; this token has ${failed.claim} ${has ? JSON.stringify(has.slice(0, 200)) : '(none)'}.`;
  }
  const hit = rule.refuse.find((c) => claimTexts(claims[c.claim]).some((v) => c.match(v)));
  if (hit) {
    const has = claimTexts(claims[hit.claim]).join(', ');
    return `${head} refuses ${resource} to tokens with ${hit.claim} ${hit.shown}; this token has ${hit.claim} ${JSON.stringify(has.slice(0, 200))}.`;
  }
  if (rule.protectedRef && String(claims.ref_protected) !== 'true') {
    return `${head} lets ${resource} be leased only from a protected ref; this token has ref_protected ${JSON.stringify(String(claims.ref_protected ?? '(none)'))}.`;
  }
  const builtIn = builtInRefusal(rule.kind, claims, rule.allowForks);
  if (builtIn)
    return `${head} refuses ${resource} to this token (${builtIn.claim}): ${builtIn.why}.`;
  return undefined;
}

/** A claim as texts for matching: a scalar as one, a list's scalars each; else one '' (matches only `*`). */
function claimTexts(value: unknown): string[] {
  const one = (v: unknown) =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
  if (Array.isArray(value)) {
    const items = value.map(one).filter(Boolean);
    return items.length ? items : [''];
  }
  return [one(value)];
}
