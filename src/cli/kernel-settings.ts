import { defaultLockDelayMs } from '../kernel/rules/core.js';
import { PUBLIC_URL_FORM, parsePublicUrl } from '../kernel/http/names.js';
import type { PostgresOptions } from '../kernel/postgres/settings.js';
import {
  HealthCheckError,
  parseHealthCheck,
  type HealthCheck,
} from '../kernel/service/health-checks.js';
import { isLoopbackHost } from '../plane/url.js';
import { authFlagsChecked, type AuthFlags } from './kernel-auth.js';
import type { KERNEL_FLAGS } from './flags/kernel.js';
import type { ValuesOf } from './flags/table.js';
import { kernelKeysOf, type KernelKeys } from './kernel-keys.js';
import { postgresFrom } from './kernel-postgres.js';
import { githubFlags, type GitHubFlags } from './compare-flag.js';
import { promoteFlag } from './promote-flag.js';
import { UsageError } from './options.js';
import { logFormatOf } from './log-format-flag.js';
import type { LogFormat } from '../log/logger.js';

/** What `lease-gate kernel`'s parser gives, typed by its table (flags/kernel.ts). */
export type KernelFlags = ValuesOf<typeof KERNEL_FLAGS>;

/** The kernel's settings, every flag read and checked; the files they name are read at start. */
export interface KernelSettings {
  /** The listen address, without an IPv6 literal's brackets. */
  host: string;
  port: number;
  ttlMs: number;
  lockDelayMs: number;
  publicUrls: string[];
  keys: KernelKeys;
  auth: AuthFlags;
  approverOidc: string[] | undefined;
  promote: Map<string, string> | undefined;
  github: GitHubFlags | undefined;
  healthChecks: HealthCheck[];
  healthIntervalMs: number;
  healthFreezeHeld: boolean;
  /** The append-only log's file (--ledger, or beside --data-prefix); none: memory only. */
  logFile: string | undefined;
  postgres: PostgresOptions | undefined;
  signingKeyFile: string | undefined;
  windowsFile: string | undefined;
  notify: { urls: string[]; secretFile: string | undefined; file: string | undefined };
  /** The process whose end stops the kernel (a dry run's job); 0: none. */
  exitWithPid: number;
  quiet: boolean;
  /** --log-format, else LEASE_GATE_LOG_FORMAT, else text. */
  logFormat: LogFormat;
  /** What to say on stderr at start (an old flag's name). */
  warnings: string[];
}

/**
 * Flags and environment → the kernel's settings, or a UsageError naming the flag and the
 * form it takes. Pure: no file is read here (startKernel reads keys, policies, windows).
 */
export function kernelSettings(values: KernelFlags, env: NodeJS.ProcessEnv): KernelSettings {
  const port = wholeNumber(
    values.port,
    '--port',
    0,
    65_535,
    'a port number from 0 to 65535 (0 picks a free one)',
  );
  const ttlMs = milliseconds(values['ttl-ms'], '--ttl-ms');
  const lockDelayMs = parseLockDelay(values['lock-delay-ms'], ttlMs);
  const healthChecks = parseHealthChecks(values['health-check']);
  const healthIntervalMs = milliseconds(values['health-interval-ms'], '--health-interval-ms');
  if (values['health-freeze-held'] && !healthChecks.length)
    throw new UsageError('--health-freeze-held needs a --health-check RESOURCE=URL.');
  const publicUrls = values['public-url'];
  const parsedUrls = publicUrls.map((url) => {
    const parsed = parsePublicUrl(url);
    if (!parsed)
      throw new UsageError(`Invalid --public-url '${url}'. Expected ${PUBLIC_URL_FORM}.`);
    return parsed;
  });
  const host = values.host.replace(/^\[(.*)\]$/, '$1');
  const keys = kernelKeysOf(env, host, parsedUrls);
  const oidcOn = values['oidc-audience'] ?? (values['oidc-issuers'] ? 'issuers file' : undefined);
  const approverOidc = approverOidcOf(values['approver-oidc'], oidcOn, env);
  const promote = promoteFlag(values.promote);
  const github = githubFlags(values, promote);
  if (!isLoopbackHost(host) && !keys.key && !values.keys && !oidcOn) {
    throw new UsageError(
      `Refusing to listen on ${values.host} without a credential: set LEASE_GATE_KERNEL_KEY, --keys FILE or --oidc-audience, or keep --host on loopback.`,
    );
  }
  authFlagsChecked(values, keys.key);
  const warnings: string[] = [];
  const dataPrefix = dataPrefixFrom(values, warnings);
  const postgres = postgresFrom(values, env);
  if (postgres && (dataPrefix || values.ledger))
    throw new UsageError(
      '--store postgres keeps the log in the database: drop --data-prefix and --ledger.',
    );
  if (postgres && !values['signing-key'])
    throw new UsageError(
      '--store postgres needs --signing-key FILE: every replica signs the shared ledger with the same key.',
    );
  return {
    ...{ host, port, ttlMs, lockDelayMs, publicUrls, keys, approverOidc, promote, github },
    ...{ healthChecks, healthIntervalMs, healthFreezeHeld: values['health-freeze-held'] },
    auth: authOf(values),
    // The log is the kernel's one durable record; --data-prefix names where it lives.
    logFile: values.ledger ?? (dataPrefix ? `${dataPrefix}.ledger.jsonl` : undefined),
    postgres,
    signingKeyFile: values['signing-key'],
    windowsFile: values.windows,
    notify: {
      urls: values.notify ?? [],
      secretFile: values['notify-secret-file'],
      file: values['notify-file'],
    },
    exitWithPid: Number(values['exit-with-pid']),
    quiet: values.quiet,
    logFormat: logFormatOf(values['log-format'], env),
    warnings,
  };
}

/** Only the credential flags, for kernelAuth() at start. */
const authOf = (values: AuthFlags): AuthFlags => ({
  'oidc-issuer': values['oidc-issuer'],
  'oidc-audience': values['oidc-audience'],
  'oidc-issuers': values['oidc-issuers'],
  'oidc-did-host': values['oidc-did-host'],
  policy: values.policy,
  keys: values.keys,
});

/** Digits only, from `min` to `max`, else refused naming the flag and `form`. */
function wholeNumber(raw: string, flag: string, min: number, max: number, form: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max)
    throw new UsageError(`Invalid ${flag} '${raw}'. Expected ${form}.`);
  return n;
}

/** A period in milliseconds, from 100 ms to an hour (--ttl-ms, --health-interval-ms). */
const milliseconds = (raw: string, flag: string) =>
  wholeNumber(raw, flag, 100, 3_600_000, 'milliseconds from 100 to 3600000');

/**
 * `--approver-oidc PATTERN` (repeatable): OIDC identities that may approve a break-glass, a
 * glob over the verified token's `sub` (`repo:acme/ops:environment:break-glass`), so a
 * reviewer-protected workflow can be the second approver. Tokens are verified as every
 * token is, which needs --oidc-audience; the admin key opens what they approve.
 */
function approverOidcOf(
  patterns: readonly string[],
  audience: string | undefined,
  env: NodeJS.ProcessEnv,
): string[] | undefined {
  if (!patterns.length) return undefined;
  if (audience === undefined)
    throw new UsageError(
      "--approver-oidc needs --oidc-audience AUD (and --policy FILE): the kernel verifies the approvers' tokens as it verifies the jobs'.",
    );
  if (!env.LEASE_GATE_ADMIN_KEY)
    throw new UsageError(
      '--approver-oidc approves what the admin key opens: set LEASE_GATE_ADMIN_KEY too.',
    );
  for (const pattern of patterns) {
    // A pattern names its owner outright (no glob there), so '*', 'repo:*' or '?*' cannot
    // make every repository that can mint a token for the audience an approver.
    if (!/^[\x21-\x7e]{1,256}$/.test(pattern) || !/^repo:[A-Za-z0-9][A-Za-z0-9-]*\//.test(pattern))
      throw new UsageError(
        `Invalid --approver-oidc '${pattern.slice(0, 80)}'. Expected a glob over a token's sub that starts with repo:OWNER/, such as repo:acme/ops:environment:break-glass (printable, no spaces).`,
      );
  }
  return [...patterns];
}

/** `--health-check RESOURCE=URL`, repeated; one check per resource. */
function parseHealthChecks(specs: readonly string[]): HealthCheck[] {
  const checks: HealthCheck[] = [];
  for (const spec of specs) {
    let check: HealthCheck;
    try {
      check = parseHealthCheck(spec);
    } catch (error) {
      if (error instanceof HealthCheckError) throw new UsageError(error.message, { cause: error });
      throw error;
    }
    if (checks.some((c) => c.resource === check.resource))
      throw new UsageError(`--health-check names ${check.resource} twice: one check per resource.`);
    checks.push(check);
  }
  return checks;
}

/** `--lock-delay-ms`: 0 (none) up to a lease lifetime; one renewal interval plus grace by default. */
function parseLockDelay(raw: string | undefined, ttlMs: number): number {
  if (raw === undefined) return defaultLockDelayMs(ttlMs);
  const ms = Number(raw);
  if (!/^\d{1,10}$/.test(raw) || ms > ttlMs) {
    throw new UsageError(
      `Invalid --lock-delay-ms '${raw}'. Expected milliseconds from 0 to the lease lifetime (--ttl-ms, ${ttlMs}).`,
    );
  }
  return ms;
}

/**
 * --data-prefix PATH: the kernel's log is PATH.ledger.jsonl. It was called --state, a
 * name for a file that holds no state; that name still works and says so once.
 */
function dataPrefixFrom(
  values: { 'data-prefix'?: string | undefined; state?: string | undefined },
  warnings: string[],
): string | undefined {
  if (values.state === undefined) return values['data-prefix'];
  if (values['data-prefix'] !== undefined)
    throw new UsageError('Give --data-prefix only: --state is its old name.');
  warnings.push(
    `lease-gate kernel: --state is now --data-prefix (the log is ${values.state}.ledger.jsonl); the old name will go in a later major release.`,
  );
  return values.state;
}
