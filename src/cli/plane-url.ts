/**
 * Where the CLI's plane URL comes from: `--api-url`, else LEASE_GATE_API_URL, else
 * INTRAMEDIAL_API_URL (the hosted plane's name, still read), else the hosted plane.
 * A command that asked the hosted plane only because nothing else was named says so
 * when it fails, and how to point it at one's own kernel.
 */

export const HOSTED_API_URL = 'https://api.intramedial.com';

/** The variables read for the default `--api-url`, first found wins. */
export const API_URL_ENVS = ['LEASE_GATE_API_URL', 'INTRAMEDIAL_API_URL'] as const;

export interface GivenApiUrl {
  value: string;
  /** For a bad value's message: `--api-url`, `LEASE_GATE_API_URL (environment)`... */
  from: string;
  /** For an unreachable plane's line: "from --api-url", "the default, ...". */
  source: string;
  /** Nothing named a plane: the hosted one is asked. */
  hosted: boolean;
}

export const HOSTED_SOURCE = 'the default, the hosted plane: no --api-url, no LEASE_GATE_API_URL';

/** `flag` is the value of `--api-url` (or its alias), `flagName` how it was spelled. */
export function givenApiUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  flagName = '--api-url',
): GivenApiUrl {
  if (flag !== undefined)
    return { value: flag, from: flagName, source: `from ${flagName}`, hosted: false };
  for (const name of API_URL_ENVS) {
    const value = env[name];
    if (value)
      return {
        value,
        from: `${name} (environment)`,
        source: `from the environment variable ${name}`,
        hosted: false,
      };
  }
  return {
    value: HOSTED_API_URL,
    from: '--api-url (default)',
    source: HOSTED_SOURCE,
    hosted: true,
  };
}

/** What a failure against the hosted plane adds: it was (or would be) asked, and how to ask another. */
export const hostedHint = (asked = true) =>
  `The hosted plane ${HOSTED_API_URL} ${asked ? 'was' : 'would be'} asked: no --api-url and no LEASE_GATE_API_URL named another. To use your own kernel, pass --api-url URL or set LEASE_GATE_API_URL (e.g. http://127.0.0.1:8787).`;
export const HOSTED_HINT = hostedHint();

/** The commands that talk to a plane (and take --api-url). */
export const PLANE_COMMANDS = new Set([
  'acquire',
  'release',
  'run',
  'status',
  'history',
  'revoke',
  'freeze',
  'unfreeze',
  'break-glass',
  'approve-break-glass',
  'ledger',
]);

/**
 * Whether a plane command's run named no plane (no `--api-url`, `--url` for `ledger export`,
 * nor a variable): then its failure was the hosted plane's. Only its own flags, before `--`.
 */
export function askedHostedPlane(name: string, args: string[], env: NodeJS.ProcessEnv): boolean {
  if (!PLANE_COMMANDS.has(name)) return false;
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  const flags = name === 'ledger' ? ['--api-url', '--url'] : ['--api-url'];
  if (own.some((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)))) return false;
  return givenApiUrl(undefined, env).hosted;
}
