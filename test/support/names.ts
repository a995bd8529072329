/**
 * The names most tests use, in one place: agents (DIDs of the form a kernel accepts),
 * the production resource, and the coordination API's paths. A test with names of its
 * own (a repository's runs, a resource of its scenario) declares them itself.
 */

export const A = 'did:web:acme.example:agent:a';
export const B = 'did:web:acme.example:agent:b';
export const C = 'did:web:acme.example:agent:c';

export const R = 'lock:deploy/production';
export const PROD = R;
export const RESOURCE = R;

export const LEASE = '/api/v1/acp/coordination/lease';
export const RELEASE = '/api/v1/acp/coordination/release';
export const REVOKE = '/api/v1/acp/coordination/revoke';

/** Another run's job (run 777 of acme/shop): the holder a scripted plane names. */
export const OTHER = 'did:web:github.com:acme:shop:actions:runs:777:attempts:1:jobs:deploy:beef';
