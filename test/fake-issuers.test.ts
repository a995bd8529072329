import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/http/client.js';
import { createOidcVerifier } from '../src/kernel/auth/oidc.js';
import { CI_KINDS, jobDidPrefix, kindOfIssuer, type CiKind } from '../src/plane/ci-job.js';
import { CIRCLECI_ORG_ID, startCiIssuer, type CiIssuer } from './support/fake-issuers.js';

/**
 * The fake issuers the multi-issuer tests stand on: each serves discovery and JWKS under
 * its issuer URL, and its tokens verify and name a job of its CI in the DID forms of
 * src/plane/ci-job.ts.
 */

const http = createHttpClient();
const issuers = new Map<CiKind, CiIssuer>();

beforeAll(async () => {
  for (const kind of CI_KINDS) issuers.set(kind, await startCiIssuer(kind));
});
afterAll(async () => {
  for (const issuer of issuers.values()) await issuer.close();
});

const PREFIXES: Record<Exclude<CiKind, 'custom'>, RegExp> = {
  github: /^did:web:github\.com:acme:shop:actions:runs:4242:attempts:1:$/,
  gitlab: /^did:web:127\.0\.0\.1%3A\d+:gitlab:projects:4201:pipelines:9001:jobs:55501:$/,
  circleci: new RegExp(`^did:web:oidc\\.circleci\\.com:circleci:orgs:${CIRCLECI_ORG_ID}:projects:`),
  buildkite: /^did:web:agent\.buildkite\.com:buildkite:acme:shop:builds:42:jobs:0190b8a1-/,
};

describe('fake CI issuers', () => {
  it.each(['github', 'gitlab', 'circleci', 'buildkite'] as const)(
    "%s: a token verifies against the issuer's own keys and names a job",
    async (kind) => {
      const issuer = issuers.get(kind)!;
      const verifier = createOidcVerifier({ issuer: issuer.url, audience: issuer.audience, http });
      const claims = await verifier.verify(await issuer.token());
      expect(claims.iss).toBe(issuer.url);
      const host = kind === 'github' ? 'github.com' : new URL(issuer.url).host;
      expect(jobDidPrefix(kind, claims, host)).toMatch(PREFIXES[kind]);
    },
  );

  it("the CircleCI fake's URL ends with its org, and its default audience is the org id", () => {
    const circle = issuers.get('circleci')!;
    expect(circle.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/org/${CIRCLECI_ORG_ID}$`));
    expect(circle.audience).toBe(CIRCLECI_ORG_ID);
    // A loopback URL says nothing of its kind: the operator names it.
    expect(kindOfIssuer(circle.url)).toBeUndefined();
  });

  it("a token signed with another issuer's key does not verify", async () => {
    const gitlab = issuers.get('gitlab')!;
    const circle = issuers.get('circleci')!;
    const verifier = createOidcVerifier({ issuer: gitlab.url, audience: gitlab.audience, http });
    const forged = await gitlab.token({}, { key: circle.fake.current });
    await expect(verifier.verify(forged)).rejects.toThrow(/key the issuer doesn't publish/);
  });

  it('claims are overridden per token', async () => {
    const gitlab = issuers.get('gitlab')!;
    const verifier = createOidcVerifier({ issuer: gitlab.url, audience: gitlab.audience, http });
    const claims = await verifier.verify(
      await gitlab.token({ pipeline_source: 'merge_request_event' }),
    );
    expect(claims.pipeline_source).toBe('merge_request_event');
    expect(claims.ci_config_ref_uri).toBe(
      `${new URL(gitlab.url).host}/acme/shop//.gitlab-ci.yml@refs/heads/main`,
    );
  });
});
