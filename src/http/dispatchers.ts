import type { Dispatcher, EnvHttpProxyAgent as ProxyAgentType } from 'undici';
import { isLoopbackHost } from './loopback.js';
import { Agent, EnvHttpProxyAgent } from './undici.js';

/**
 * The client's connections: a direct agent, and a proxy agent when the environment names a
 * proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), each with the client's timeouts.
 */

export interface DispatcherOptions {
  env: NodeJS.ProcessEnv;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  proxyLoopback: boolean;
}

export interface Dispatchers {
  /** The agent a request to `url` goes through. */
  for(url: URL): Dispatcher;
  destroy(): Promise<void>;
}

function proxyEnv(env: NodeJS.ProcessEnv) {
  const pick = (name: string) => env[name.toLowerCase()] ?? env[name] ?? '';
  return {
    httpProxy: pick('HTTP_PROXY'),
    httpsProxy: pick('HTTPS_PROXY'),
    noProxy: pick('NO_PROXY'),
  };
}

export function createDispatchers(options: DispatcherOptions): Dispatchers {
  const agentOptions = {
    connect: { timeout: options.connectTimeoutMs },
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    keepAliveTimeout: 4_000,
  };
  const proxies = proxyEnv(options.env);
  const direct: Dispatcher = new Agent(agentOptions);
  // Loopback is decided here, by the same test that allows plain http: to it, and not
  // left to NO_PROXY matching, which missed [::1] and 127.0.0.2 (the key crossed the proxy).
  const proxied: Dispatcher | undefined =
    proxies.httpProxy || proxies.httpsProxy
      ? new EnvHttpProxyAgent({
          ...agentOptions,
          httpProxy: proxies.httpProxy || undefined,
          httpsProxy: proxies.httpsProxy || proxies.httpProxy || undefined,
          noProxy: proxies.noProxy,
        } as ProxyAgentType.Options)
      : undefined;
  return {
    for: (url) =>
      proxied && (options.proxyLoopback || !isLoopbackHost(url.hostname)) ? proxied : direct,
    async destroy() {
      await Promise.all([direct.destroy(), proxied?.destroy()]);
    },
  };
}
