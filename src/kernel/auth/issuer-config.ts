import * as z from 'zod/mini';
import '../../zod-en.js';
import { causeText } from '../../errors.js';
import { DEPLOY_FIELDS, type Deploy } from '../../plane/deploy.js';
import { CI_KINDS, kindOfIssuer, templateProblem, type CiKind } from '../../plane/ci-job.js';
import { parseRepository } from '../../plane/did.js';
import { AuthFileError, entryPath, readJsonFile } from './file.js';
import { checkIssuerUrl } from './oidc-keys.js';

/**
 * The OIDC issuers a kernel accepts tokens of: `--oidc-issuer [KIND=]URL` (repeatable, all
 * for `--oidc-audience`), or `--oidc-issuers FILE` (JSON, one entry per issuer, each with its
 * own audience and mapping). Read and checked before the kernel listens; every error names
 * the flag or the file and entry, and the accepted form. No I/O beyond reading the file.
 *
 *   { "issuers": [
 *       { "name": "github", "kind": "github", "url": "https://token.actions.githubusercontent.com",
 *         "audience": "lease-gate" },
 *       { "name": "gitlab", "kind": "gitlab", "url": "https://gitlab.com", "audience": "lease-gate",
 *         "repositories": { "4201": "acme/shop" } },
 *       { "name": "buildkite", "kind": "buildkite", "url": "https://agent.buildkite.com",
 *         "audience": "lease-gate", "organization": "acme" } ] }
 */

export const ISSUERS_FILE_FLAG = '--oidc-issuers';

export interface IssuerSpec {
  /** What policy rules name it by (`issuer`), and the start-up line and messages. */
  name: string;
  kind: CiKind;
  /** Its `iss`, without a trailing slash: tokens are routed to it by exact match. */
  url: string;
  audience: string;
  /** The host its jobs' DIDs carry (GitHub, GitLab); others' are fixed by their kind. */
  didHost: string;
  /** Buildkite: the organization slug (or UUID) its tokens must name; CircleCI: the org id in its URL. */
  organization?: string | undefined;
  /** A project of this CI (GitLab id or path, CircleCI project-id, Buildkite org/pipeline) → owner/repo. */
  repositories: ReadonlyMap<string, string>;
  /** Custom: the DID template (ci-job.ts), the deploy field → claim mapping, the claims rules may test. */
  did?: string | undefined;
  deploy?: Partial<Record<keyof Deploy, string>> | undefined;
  claims?: readonly string[] | undefined;
}

const CLAIM = /^[A-Za-z0-9_./-]{1,100}$/;
const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const claimName = z.string().check(z.regex(CLAIM, 'expected a claim name such as build_number'));
const entrySchema = z.strictObject({
  name: z.string().check(z.regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'expected a name such as gitlab')),
  kind: z.enum(CI_KINDS),
  url: text(500),
  audience: z.optional(
    z.string().check(z.regex(/^[\x21-\x7e]{1,200}$/, 'expected 1 to 200 printable characters')),
  ),
  didHost: z.optional(
    z
      .string()
      .check(
        z.regex(
          /^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/,
          'expected a host name such as gitlab.example.com',
        ),
      ),
  ),
  organization: z.optional(text(100)),
  repositories: z.optional(z.record(text(200), text(201))),
  did: z.optional(text(500)),
  deploy: z.optional(
    z.partialRecord(z.enum(DEPLOY_FIELDS as [keyof Deploy, ...(keyof Deploy)[]]), claimName),
  ),
  claims: z.optional(z.array(claimName).check(z.maxLength(100))),
});
const fileSchema = z.strictObject({
  issuers: z.array(entrySchema).check(z.minLength(1), z.maxLength(50)),
});
type Entry = z.infer<typeof entrySchema>;

/** Every issuer named in an issuers file, checked as a whole (names and URLs unique, pins set). */
export function readIssuersFile(file: string, audience: string | undefined): IssuerSpec[] {
  const data = readJsonFile(file, fileSchema, (path, raw) =>
    entryPath('issuers', (raw as { issuers?: unknown } | null)?.issuers, path),
  );
  const specs = data.issuers.map((entry, index) => {
    const where = `${file}: issuers[${index}] ("${entry.name}")`;
    const problem = entryProblem(entry, audience);
    if (problem) throw new AuthFileError(`${where}: ${problem}.`);
    return specOf(entry, audience!);
  });
  const seen = new Map<string, string>();
  for (const spec of specs) {
    for (const key of [`name ${spec.name}`, `url ${spec.url}`]) {
      if (seen.has(key))
        throw new AuthFileError(`${file}: two issuers have the ${key}; each must be named once.`);
      seen.set(key, spec.name);
    }
  }
  return specs;
}

/** `--oidc-issuer [KIND=]URL` values: the kinds a URL alone can configure. */
export function issuersFromFlags(
  values: readonly string[],
  audience: string,
  didHost: string | undefined,
): IssuerSpec[] {
  const specs = values.map((value) => {
    const at = /^([a-z]+)=(.*)$/.exec(value);
    const url = at ? at[2]! : value;
    try {
      checkIssuerUrl(url.replace(/\/+$/, ''));
    } catch (error) {
      throw new AuthFileError(`Invalid --oidc-issuer: ${causeText(error)}.`);
    }
    // No KIND=: a URL of none of the known CIs is a GitHub Enterprise Server's, as before.
    const kind = (at ? at[1] : (kindOfIssuer(url) ?? 'github')) as CiKind;
    if (!CI_KINDS.includes(kind)) {
      throw new AuthFileError(
        `Invalid --oidc-issuer '${value.slice(0, 120)}': expected [KIND=]URL, KIND one of ${CI_KINDS.join(', ')}, e.g. gitlab=https://gitlab.example.com.`,
      );
    }
    if (kind === 'buildkite' || kind === 'custom') {
      throw new AuthFileError(
        `--oidc-issuer ${value.slice(0, 120)}: a ${kind} issuer needs ${kind === 'buildkite' ? 'its organization pinned (https://agent.buildkite.com issues tokens for every Buildkite organization)' : 'a DID template and a claim mapping'}; configure it in an issuers file (${ISSUERS_FILE_FLAG} FILE, see docs/ci-issuers.md).`,
      );
    }
    const entry: Entry = { name: kind, kind, url, audience, ...(didHost ? { didHost } : {}) };
    const problem = entryProblem(entry, audience);
    if (problem)
      throw new AuthFileError(`Invalid --oidc-issuer '${value.slice(0, 120)}': ${problem}.`);
    return specOf(entry, audience);
  });
  // Two issuers of one kind from flags: name them apart by their host.
  for (const spec of specs) {
    if (specs.filter((s) => s.name === spec.name).length > 1)
      spec.name = `${spec.kind}-${new URL(spec.url).host}`;
  }
  const urls = new Set(specs.map((s) => s.url));
  if (urls.size < specs.length) throw new AuthFileError('--oidc-issuer names one issuer twice.');
  return specs;
}

function entryProblem(entry: Entry, audience: string | undefined): string | undefined {
  try {
    checkIssuerUrl(entry.url.replace(/\/+$/, ''));
  } catch (error) {
    return causeText(error);
  }
  if (!entry.audience && !audience) return 'needs an "audience" (or --oidc-audience AUD for all)';
  const byUrl = kindOfIssuer(entry.url);
  if (byUrl !== undefined && byUrl !== entry.kind)
    return `its url is ${byUrl}'s, not a ${entry.kind} issuer's`;
  if (entry.kind === 'buildkite' && !entry.organization)
    return 'a buildkite issuer needs "organization" (its organization slug): https://agent.buildkite.com issues tokens for every Buildkite organization, so an unpinned one would let any of them lease';
  if (entry.kind === 'circleci') {
    const org = /\/org\/([0-9a-f-]{36})$/i.exec(entry.url.replace(/\/+$/, ''))?.[1];
    if (!org)
      return 'a circleci issuer url ends with /org/<org-id>, e.g. https://oidc.circleci.com/org/6a1b…';
    if (entry.organization && entry.organization !== org)
      return `"organization" ${entry.organization} is not the org id in its url (${org})`;
  }
  if (entry.kind === 'custom') {
    if (!entry.did)
      return 'a custom issuer needs "did", a DID template such as did:web:jenkins.example.com:{sub}:';
    const bad = templateProblem(entry.did);
    if (bad) return `"did": ${bad}`;
  } else if (entry.did || entry.deploy || entry.claims) {
    return `"did", "deploy" and "claims" are for custom issuers; ${entry.kind}'s mapping is built in`;
  }
  for (const [project, repository] of Object.entries(entry.repositories ?? {})) {
    if (!parseRepository(repository))
      return `"repositories" maps ${project} to ${JSON.stringify(repository.slice(0, 80))}: expected owner/repo`;
  }
  return undefined;
}

function specOf(entry: Entry, audience: string): IssuerSpec {
  const url = entry.url.replace(/\/+$/, '');
  const host = new URL(url);
  const didHost =
    entry.didHost ??
    (host.hostname === 'token.actions.githubusercontent.com' ? 'github.com' : host.host);
  const organization =
    entry.kind === 'circleci' ? /\/org\/([0-9a-f-]{36})$/i.exec(url)?.[1] : entry.organization;
  return {
    name: entry.name,
    kind: entry.kind,
    url,
    audience: entry.audience ?? audience,
    didHost,
    organization,
    repositories: new Map(Object.entries(entry.repositories ?? {})),
    did: entry.did,
    deploy: entry.deploy,
    claims: entry.claims,
  };
}
