import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as z from 'zod/mini';
import '../zod-en.js';
import { causeText, LeaseGateError, type CauseOptions } from '../errors.js';
import { DURATION_FORM, parseDuration } from '../gate/duration.js';
import { resourceSchema } from '../plane/schema.js';
import { isLoopbackHost, parsePlaneUrl } from '../plane/url.js';
import { untrusted } from '../lease/escape.js';
import { keyFromEnv } from '../lease/settings.js';

/** The config file is wrong: the message names the field and the accepted form. */
export class ConfigError extends LeaseGateError<'config'> {
  override name = 'ConfigError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'config' });
  }
}

/** One rule: runs of repositories matching `repository` that target `environment` queue for `resource`. */
export interface Rule {
  /** `owner/repo`, where `*` matches any run of characters but `/` (`acme/*`, `*\/*`). */
  repository: string;
  /** GitHub environment name, compared without case (GitHub's own rule). */
  environment: string;
  resource: string;
  /** The workflow job id (`jobs.<id>`) whose step takes up the lease; absent: any job of the run. */
  job?: string | undefined;
}

export interface AppConfig {
  appId: string;
  /** PEM text of the App's private key (read from `privateKeyFile`). Never logged. */
  privateKey: string;
  /** The webhook secret (read from `webhookSecretFile`). Never logged. */
  webhookSecret: string;
  githubApiUrl: string;
  /** The GitHub server the runs' DIDs are derived from (the runner's GITHUB_SERVER_URL). */
  githubServerUrl: string;
  planeUrl: string;
  /** From `plane.keyFile`, else LEASE_GATE_KEY or INTRAMEDIAL_KEY; empty only for a plane on loopback. Never logged. */
  planeKey: string;
  host: string;
  port: number;
  /** The path GitHub posts deliveries to. */
  path: string;
  rules: Rule[];
  takeUpGraceMs: number;
  maxWaitMs: number;
  /** How often a waiting run's status is checked (a missed `workflow_run` event). */
  runCheckEveryMs: number;
  /** Post a deployment status (`queued`, with who holds the resource) while a run waits. */
  deploymentStatus: boolean;
}

const duration = (fallback: string, min = 0) =>
  z.pipe(
    z._default(z.string(), fallback),
    z.transform((raw: string, ctx) => {
      const ms = parseDuration(raw);
      if (ms === undefined || ms < min) {
        ctx.issues.push({
          code: 'custom',
          input: raw,
          message: `expected ${DURATION_FORM}, at most 24h${min ? `, at least ${min / 1000}s` : ''}`,
        });
        return z.NEVER;
      }
      return ms;
    }),
  );

const checkedUrl = (raw: string): string => {
  const url = parsePlaneUrl(raw);
  return url.ok ? url.url : raw;
};
const originUrl = (what: string) =>
  z
    .string()
    .check(
      z.refine(
        (v) => parsePlaneUrl(v).ok,
        `expected ${what}: an https:// origin (plain http:// only for localhost or 127.0.0.1)`,
      ),
    );

/**
 * `appId` as a number, or as a string of digits, on purpose: a value pasted from the App's
 * page, or written by a templating tool, is often quoted. The docs and --help say so.
 */
const APP_ID_FORM =
  'expected the App ID, a positive integer (a number, or a string of digits such as "123456")';

/** The config file's shape; exported so a test holds `lease-gate app --help` and the docs to it. */
export const configFileSchema = z.strictObject({
  // A string of digits is accepted on purpose (a value pasted from the App's page, or
  // written by a templating tool, is often quoted); the docs and --help say so.
  appId: z.union(
    [
      z.number().check(z.int(APP_ID_FORM), z.positive(APP_ID_FORM)),
      z.string().check(
        z.regex(/^[1-9]\d{0,19}$/, {
          error: (issue) =>
            typeof issue.input === 'string' && /^Iv\d*\./.test(issue.input)
              ? "expected the App ID (a number, on the App's settings page under 'About'), not its Client ID (Iv…)"
              : APP_ID_FORM,
        }),
      ),
    ],
    { error: APP_ID_FORM },
  ),
  privateKeyFile: z
    .string()
    .check(z.minLength(1, 'expected the path of the App private key (PEM)')),
  webhookSecretFile: z
    .string()
    .check(z.minLength(1, 'expected the path of a file holding the webhook secret')),
  githubApiUrl: z._default(originUrl("GitHub's REST API"), 'https://api.github.com'),
  githubServerUrl: z._default(originUrl('the GitHub server'), 'https://github.com'),
  plane: z.strictObject({
    url: originUrl("the plane's URL"),
    keyFile: z.optional(z.string().check(z.minLength(1))),
  }),
  listen: z._default(
    z.strictObject({
      host: z._default(z.string().check(z.minLength(1)), '127.0.0.1'),
      port: z._default(z.number().check(z.int(), z.gte(0), z.lte(65_535)), 8790),
      path: z._default(
        z.string().check(z.regex(/^\/[\x21-\x7e]{0,200}$/, 'expected a path starting with /')),
        '/',
      ),
    }),
    { host: '127.0.0.1', port: 8790, path: '/' },
  ),
  rules: z
    .array(
      z.strictObject({
        repository: z
          .string()
          .check(
            z.regex(
              /^[A-Za-z0-9*][A-Za-z0-9*-]{0,38}\/[A-Za-z0-9._*-]{1,100}$/,
              'expected owner/repo, where * matches any characters but /',
            ),
          ),
        environment: z.string().check(z.minLength(1), z.maxLength(255)),
        resource: resourceSchema,
        job: z.optional(
          z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_-]{0,99}$/, 'expected a workflow job id')),
        ),
      }),
    )
    .check(z.minLength(1, 'expected at least one rule')),
  takeUpGrace: duration('10m', 1_000),
  maxWait: duration('6h', 1_000),
  runCheckEvery: duration('1m', 1_000),
  deploymentStatus: z._default(z.boolean(), true),
});

/** Reads and checks the config file, and the secrets it names (paths relative to the file). */
export function loadConfig(file: string, env: NodeJS.ProcessEnv): AppConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `Cannot read the config ${file}: ${causeText(error)}. Expected a JSON file.`,
      { cause: error },
    );
  }
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    if (issue.code === 'unrecognized_keys') {
      // A misspelt setting (`takeUpGrase`) must not leave its default in force unseen.
      const key = issue.keys[0] ?? '';
      const known = Object.keys(knownFields(issue.path)).join(', ');
      throw new ConfigError(
        `Invalid config ${file}: field '${`${at}.${untrusted(key, 80)}`.slice(1)}': not a setting of the app (expected one of: ${known}).`,
      );
    }
    const field = at.slice(1);
    throw new ConfigError(`Invalid config ${file}: field '${field || '(top)'}': ${issue.message}.`);
  }
  const c = parsed.data;
  const near = (path: string) => resolve(dirname(file), path);
  const secret = (field: string, path: string) => {
    try {
      const text = readFileSync(near(path), 'utf8').trim();
      if (text) return text;
    } catch {
      // Named below, without the file's content.
    }
    throw new ConfigError(
      `Invalid config ${file}: field '${field}': cannot read a non-empty file at ${path}.`,
    );
  };
  const privateKey = secret('privateKeyFile', c.privateKeyFile);
  if (!isRsaPrivateKey(privateKey)) {
    // Checked here, not at the first run: a key that does not parse would drop every run.
    throw new ConfigError(
      `Invalid config ${file}: field 'privateKeyFile': ${c.privateKeyFile} is not a PEM RSA private key (the App's key as GitHub downloads it).`,
    );
  }
  const planeUrl = checkedUrl(c.plane.url);
  const planeKey = c.plane.keyFile
    ? secret('plane.keyFile', c.plane.keyFile)
    : keyFromEnv(env).value;
  if (!planeKey && !planeUrl.startsWith('http:')) {
    throw new ConfigError(
      `Invalid config ${file}: field 'plane.keyFile': no plane key; name a file, or set LEASE_GATE_KEY (only a plane on loopback may go without).`,
    );
  }
  if (!isLoopbackHost(c.listen.host) && c.listen.host !== '0.0.0.0' && c.listen.host !== '::') {
    // Any address is allowed (GitHub must reach it); this only catches typos early.
    if (!/^[A-Za-z0-9.:-]{1,253}$/.test(c.listen.host)) {
      throw new ConfigError(
        `Invalid config ${file}: field 'listen.host': expected a host name or address.`,
      );
    }
  }
  return {
    appId: String(c.appId),
    privateKey,
    webhookSecret: secret('webhookSecretFile', c.webhookSecretFile),
    githubApiUrl: checkedUrl(c.githubApiUrl),
    githubServerUrl: checkedUrl(c.githubServerUrl),
    planeUrl,
    planeKey,
    host: c.listen.host,
    port: c.listen.port,
    path: c.listen.path,
    rules: c.rules,
    takeUpGraceMs: c.takeUpGrace,
    maxWaitMs: c.maxWait,
    runCheckEveryMs: c.runCheckEvery,
    deploymentStatus: c.deploymentStatus,
  };
}

/** The fields of the object at `path` in the config schema (top, `plane`, `listen`, a rule). */
function knownFields(path: readonly PropertyKey[]): Record<string, unknown> {
  const shape = configFileSchema.shape as Record<string, z.ZodMiniType>;
  const inner: Record<string, Record<string, unknown>> = {
    plane: configFileSchema.shape.plane.shape,
    listen: configFileSchema.shape.listen._zod.def.innerType.shape,
    rules: configFileSchema.shape.rules._zod.def.element.shape,
  };
  return inner[String(path[0])] ?? shape;
}

/** The App's key must parse as an RSA private key: auth-app signs its JWT with RS256. */
function isRsaPrivateKey(pem: string): boolean {
  if (!pem.includes('PRIVATE KEY-----')) return false;
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

/** The first rule for this repository and environment, or undefined. */
export function findRule(rules: Rule[], repository: string, environment: string): Rule | undefined {
  return rules.find(
    (rule) =>
      globToRegExp(rule.repository).test(repository) &&
      rule.environment.toLowerCase() === environment.toLowerCase(),
  );
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.]/g, '\\.'))
    .join('[^/]*');
  return new RegExp(`^${body}$`, 'i');
}
