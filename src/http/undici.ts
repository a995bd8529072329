import AgentClass from 'undici/lib/dispatcher/agent.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgentClass from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import api from 'undici/lib/api/index.js';

/**
 * The parts of undici the client uses, from their own files. undici's package index loads
 * all of it (fetch, WebSocket, EventSource, mocks, caches) and with them node:crypto: 11 MiB
 * more resident in the keeper, a process that lives as long as the job (docs/performance.md,
 * keeper). The index gives every dispatcher its API methods (`request()`, and `connect()`,
 * which the proxy agent tunnels with); so does this, from the same file.
 */
for (const [name, method] of Object.entries(api)) {
  if (!(name in DispatcherClass.prototype)) {
    Object.defineProperty(DispatcherClass.prototype, name, {
      value: method,
      writable: true,
      configurable: true,
    });
  }
}

export const Agent = AgentClass;
export const EnvHttpProxyAgent = EnvHttpProxyAgentClass;
