import { describe, expect, it } from 'vitest';
import { deriveActorDid, describeHolder, runContextFromEnv } from '../src/lease/did.js';
import { runUrlFromDid } from '../src/plane/did.js';

const env = {
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'acme/shop.web',
  GITHUB_RUN_ID: '123456',
  GITHUB_RUN_ATTEMPT: '2',
  GITHUB_JOB: 'deploy',
};

describe('the derived actor DID', () => {
  const run = runContextFromEnv(env)!;

  it('names the host, repository, run, attempt and job', () => {
    expect(deriveActorDid(run, 'a1b2c3d4')).toBe(
      'did:web:github.com:acme:shop.web:actions:runs:123456:attempts:2:jobs:deploy:a1b2c3d4',
    );
  });

  it('differs between two matrix legs of one job', () => {
    expect(deriveActorDid(run, 'aaaa')).not.toBe(deriveActorDid(run, 'bbbb'));
  });

  it('turns back into the run URL', () => {
    expect(runUrlFromDid(deriveActorDid(run, 'n'))).toBe(
      'https://github.com/acme/shop.web/actions/runs/123456/attempts/2',
    );
  });

  it('encodes a GHES port and odd job names without breaking the segments', () => {
    const ghes = runContextFromEnv({
      ...env,
      GITHUB_SERVER_URL: 'https://git.corp.example:8443',
      GITHUB_JOB: 'deploy:eu west',
    })!;
    const did = deriveActorDid(ghes, 'n');
    expect(did).toBe(
      'did:web:git.corp.example%3A8443:acme:shop.web:actions:runs:123456:attempts:2:jobs:deploy%3Aeu%20west:n',
    );
    expect(runUrlFromDid(did)).toBe(
      'https://git.corp.example:8443/acme/shop.web/actions/runs/123456/attempts/2',
    );
  });

  it('is not derived outside a run', () => {
    expect(runContextFromEnv({})).toBeUndefined();
    expect(runContextFromEnv({ ...env, GITHUB_RUN_ID: '' })).toBeUndefined();
  });
});

describe('runUrlFromDid', () => {
  it.each([
    'did:web:acme.example:agent:release',
    'did:key:z6Mk',
    'did:web:github.com:a:b:actions:runs:notanumber:attempts:1:jobs:x:n',
    'did:web:github.com:a:b:actions:pulls:1:attempts:1:jobs:x:n',
  ])('gives no URL for %s', (did) => {
    expect(runUrlFromDid(did)).toBeUndefined();
  });

  it('links a holder only when its DID is a run DID', () => {
    expect(describeHolder('did:web:acme.example:agent:release')).toBe(
      'did:web:acme.example:agent:release',
    );
    expect(describeHolder('did:web:github.com:a:b:actions:runs:9:attempts:1:jobs:deploy:n')).toBe(
      'did:web:github.com:a:b:actions:runs:9:attempts:1:jobs:deploy:n (run: https://github.com/a/b/actions/runs/9/attempts/1)',
    );
  });
});
