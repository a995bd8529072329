import { createHttpClient, type HttpClient } from '../http/client.js';
import { createAuthorizer, type Authorizer } from '../kernel/auth/authorize.js';
import { AuthFileError } from '../kernel/auth/file.js';
import {
  issuersFromFlags,
  readIssuersFile,
  type IssuerSpec,
} from '../kernel/auth/issuer-config.js';
import { GITHUB_ISSUER_URL } from '../kernel/auth/github-issuer.js';
import { issuerSet, startIssuers } from '../kernel/auth/issuers.js';
import { readScopedKeys } from '../kernel/auth/keys.js';
import { readPolicy } from '../kernel/auth/policy.js';
import { didSegment } from '../plane/did.js';
import { UsageError } from './options.js';
import { causeText } from '../errors.js';

export interface AuthFlags {
  'oidc-issuer'?: string[] | undefined;
  'oidc-issuers'?: string | undefined;
  'oidc-audience'?: string | undefined;
  'oidc-did-host'?: string | undefined;
  policy?: string | undefined;
  keys?: string | undefined;
}

export interface KernelAuth {
  auth: Authorizer;
  /** What the start-up line says about credentials. */
  summary: string;
  close(): Promise<void>;
}

/**
 * The credential flags' own rules, checked without reading a file: what needs --oidc-audience,
 * the kernel key refused beside scoped credentials, the audience's form.
 */
export function authFlagsChecked(values: AuthFlags, key: string | undefined): void {
  const audience = values['oidc-audience'];
  const file = values['oidc-issuers'];
  const oidcOn = audience !== undefined || file !== undefined;
  if (!oidcOn && (values['oidc-issuer']?.length || values['oidc-did-host'] || values.policy)) {
    throw new UsageError(
      '--oidc-issuer, --oidc-did-host and --policy need --oidc-audience AUD (the audience the jobs ask their tokens for, e.g. lease-gate).',
    );
  }
  if (file !== undefined && (values['oidc-issuer']?.length || values['oidc-did-host'])) {
    throw new UsageError(
      `--oidc-issuers ${file} names every issuer, with its didHost: leave out --oidc-issuer and --oidc-did-host.`,
    );
  }
  if (key && (oidcOn || values.keys)) {
    throw new UsageError(
      'LEASE_GATE_KERNEL_KEY makes everyone who has it trusted to be anyone, which --oidc-audience and --keys exist to prevent: unset it, and give such callers a scoped key in the keys file instead.',
    );
  }
  if (oidcOn && !values.policy) {
    throw new UsageError(
      `${audience !== undefined ? '--oidc-audience' : '--oidc-issuers'} needs --policy FILE: any GitHub repository can ask for a token with that audience, so the policy says which may lease what.`,
    );
  }
  if (audience !== undefined && !/^[\x21-\x7e]{1,200}$/.test(audience)) {
    throw new UsageError(
      `Invalid --oidc-audience '${audience.slice(0, 80)}'. Expected 1 to 200 printable characters.`,
    );
  }
}

/**
 * The issuers the flags name: an issuers file, or `--oidc-issuer [KIND=]URL` (GitHub's when
 * none) for `--oidc-audience`; undefined when OIDC is off.
 */
function issuerSpecs(values: AuthFlags): IssuerSpec[] | undefined {
  const audience = values['oidc-audience'];
  if (values['oidc-issuers'] !== undefined)
    return readIssuersFile(values['oidc-issuers'], audience);
  if (audience === undefined) return undefined;
  const didHost = values['oidc-did-host'];
  if (didHost !== undefined && !/^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/.test(didHost)) {
    throw new UsageError(
      `Invalid --oidc-did-host '${didHost.slice(0, 80)}'. Expected a host name such as github.com.`,
    );
  }
  const flags = values['oidc-issuer']?.length ? values['oidc-issuer'] : [GITHUB_ISSUER_URL];
  try {
    return issuersFromFlags(flags, audience, didHost);
  } catch (error) {
    throw new UsageError(causeText(error), { cause: error });
  }
}

/** Flags → the kernel's authorizer, every file read and checked before it listens. */
export async function kernelAuth(
  values: AuthFlags,
  key: string | undefined,
  operatorKeys: Record<string, string | undefined> = {},
): Promise<KernelAuth> {
  authFlagsChecked(values, key);
  try {
    const keys = values.keys ? readScopedKeys(values.keys) : undefined;
    // An operator's key that is also an agent's would let that agent revoke and freeze.
    for (const [name, value] of Object.entries(operatorKeys)) {
      const agent = value && keys?.find(value);
      if (agent)
        throw new UsageError(
          `${name} is the scoped key "${agent.name}" in ${values.keys}: an operator's key must be one no agent holds.`,
        );
    }
    let http: HttpClient | undefined;
    let oidc: Parameters<typeof createAuthorizer>[0]['oidc'];
    const parts: string[] = [];
    if (keys) parts.push(`${keys.size} scoped key(s) from ${values.keys}`);
    const specs = issuerSpecs(values);
    if (specs && values.policy) {
      const policy = readPolicy(values.policy, specs);
      // jose loads only here, in startIssuers: it costs ~90 ms of CPU, which a dry run's kernel need not pay.
      http = createHttpClient();
      oidc = { issuers: issuerSet(await startIssuers(specs, http)), policy };
      const each = specs.map(
        (i) =>
          `${i.name} (${i.kind}) ${i.url} for audience ${i.audience}${i.kind === 'github' || i.kind === 'gitlab' ? ` (DIDs under did:web:${didSegment(i.didHost)}:…)` : ''}`,
      );
      parts.push(
        `OIDC tokens from ${each.join(', ')}, policy of ${policy.rules} rule(s) from ${values.policy}`,
      );
    }
    return {
      auth: createAuthorizer({ key, keys, oidc }),
      summary: parts.length ? `credentials: ${parts.join('; ')}` : '',
      close: async () => {
        await http?.close();
      },
    };
  } catch (error) {
    if (error instanceof AuthFileError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
