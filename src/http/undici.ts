import AgentClass from 'undici/lib/dispatcher/agent.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgentClass from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import request from 'undici/lib/api/api-request.js';

/**
 * The parts of undici the client uses, from their own files. undici's package index loads
 * all of it (fetch, WebSocket, EventSource, mocks, caches) and with them node:crypto: 11 MiB
 * more resident in the keeper, a process that lives as long as the job (docs/performance.md,
 * keeper). The index adds `request()` to every dispatcher; so does this, with the same file.
 */
if (!('request' in DispatcherClass.prototype)) {
  Object.defineProperty(DispatcherClass.prototype, 'request', {
    value: request,
    writable: true,
    configurable: true,
  });
}

export const Agent = AgentClass;
export const EnvHttpProxyAgent = EnvHttpProxyAgentClass;
