import { Agent as HttpAgent, type AgentOptions as NodeAgentOptions } from 'node:http';
import type * as NodeHttps from 'node:https';
import { HttpError } from './errors.js';
import { isLoopbackHost } from './loopback.js';

/**
 * The client's connections: Node's own keep-alive agents, direct, or through the proxy the
 * environment names (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, lower case first) by Node's built-in
 * proxy support (the agents' `proxyEnv`, Node >= 24.5): a plain request to the proxy for
 * http:, a CONNECT tunnel for https:, credentials of the proxy URL sent as
 * Proxy-Authorization. No proxy code of ours beyond choosing the agent.
 *
 * node:https (and with it node:tls and node:crypto) is loaded at the first https: request
 * only: the keeper renewing over a plain http plane never loads TLS (test/keeper-entry.test.ts).
 */

export interface AgentsOptions {
  env: NodeJS.ProcessEnv;
  /** Send loopback requests through the proxy too (tests of the proxy path). */
  proxyLoopback: boolean;
}

export interface Agents {
  /** The agent a request to `url` goes through; `call` names it in a failure. */
  for(url: URL, call: string): Promise<HttpAgent>;
  /** Destroys every socket, idle or in use; later calls fail as cancelled. */
  destroy(): void;
}

/**
 * Idle keep-alive sockets are closed after this: before a server's usual 5 s closes them
 * under a request being sent. A server's shorter `Keep-Alive: timeout=` hint wins (Node).
 */
const KEEP_ALIVE_MS = 4_000;

type ProxyEnv = NonNullable<NodeAgentOptions['proxyEnv']>;

/**
 * What each scheme's agent is given as its `proxyEnv`, from `env` alone (never process.env
 * when a test passes its own): https: falls back to HTTP_PROXY when HTTPS_PROXY is unset.
 * `undefined`: no proxy for that scheme.
 */
export function proxySettings(env: NodeJS.ProcessEnv): {
  'http:': ProxyEnv | undefined;
  'https:': ProxyEnv | undefined;
} {
  const pick = (name: string) => env[name.toLowerCase()] ?? env[name] ?? '';
  const httpProxy = pick('HTTP_PROXY');
  const httpsProxy = pick('HTTPS_PROXY') || httpProxy;
  const noProxy = pick('NO_PROXY');
  return {
    'http:': httpProxy ? { HTTP_PROXY: httpProxy, NO_PROXY: noProxy } : undefined,
    'https:': httpsProxy ? { HTTPS_PROXY: httpsProxy, NO_PROXY: noProxy } : undefined,
  };
}

/** Whether Node `version` (`24.22.3`) has the agents' `proxyEnv`: 24.5 on. */
export function hasBuiltInProxy(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 5);
}

/**
 * Node ignores a proxy URL it cannot parse, and a Node before 24.5 ignores `proxyEnv`: both
 * would go around the proxy. Here each is a failure instead, naming the variable, never its
 * value (it may hold the proxy's credentials).
 */
function proxyProblem(proxyEnv: ProxyEnv): string | undefined {
  const [name, value] = Object.entries(proxyEnv)[0] ?? [];
  if (!hasBuiltInProxy(process.versions.node))
    return `Node ${process.versions.node} cannot use the proxy in ${name}: Node 24.5 or later is needed`;
  return isProxyUrl(String(value))
    ? undefined
    : `the proxy named by ${name} is not an http: or https: URL`;
}

/** Whether `value` is a proxy URL Node's agents use: http: or https:, else Node ignores it. */
function isProxyUrl(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:');
}

/** The accepted form of a proxy variable, for the message that refuses one. */
export const PROXY_FORM = 'an http:// or https:// URL, such as http://proxy.example:3128';

/**
 * The first proxy variable of `env` the client would use that is not a URL it can use
 * (lower case first, as proxySettings reads them), for a face to refuse before any request:
 * sent, it would fail as if the network were down, and be retried as an outage.
 */
export function badProxyVariable(env: NodeJS.ProcessEnv): string | undefined {
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY']) {
    const lower = name.toLowerCase();
    const used = env[lower] !== undefined ? lower : name;
    const value = env[used];
    if (value && !isProxyUrl(value)) return used;
  }
  return undefined;
}

export function createAgents(options: AgentsOptions): Agents {
  const proxies = proxySettings(options.env);
  const made = new Map<string, HttpAgent>();
  let https: Promise<typeof NodeHttps> | undefined;
  let destroyed = false;

  return {
    async for(url, call) {
      const scheme = url.protocol === 'https:' ? 'https:' : 'http:';
      // Loopback is decided here, by the same test that allows plain http: to it, and not
      // left to NO_PROXY matching, which missed [::1] and 127.0.0.2 (the key crossed the proxy).
      const proxyEnv =
        options.proxyLoopback || !isLoopbackHost(url.hostname) ? proxies[scheme] : undefined;
      const problem = proxyEnv && proxyProblem(proxyEnv);
      if (problem) throw new HttpError(`${call}: ${problem}`, { failure: 'network', call });
      const key = `${scheme}${proxyEnv ? 'proxied' : 'direct'}`;
      const module = scheme === 'https:' ? await (https ??= import('node:https')) : undefined;
      if (destroyed)
        throw new HttpError(`${call}: the HTTP client is closed`, { failure: 'cancelled', call });
      let agent = made.get(key);
      if (!agent) {
        // A direct agent gets an empty `proxyEnv`, not none: a Node run with
        // NODE_USE_ENV_PROXY=1 may give an agent without one process.env's proxy (proposed in
        // nodejs/node#64528).
        const settings = { keepAlive: true, timeout: KEEP_ALIVE_MS, proxyEnv: proxyEnv ?? {} };
        agent = module ? new module.Agent(settings) : new HttpAgent(settings);
        made.set(key, agent);
      }
      return agent;
    },
    destroy() {
      destroyed = true;
      for (const agent of made.values()) agent.destroy();
      made.clear();
    },
  };
}
