'use strict';
// What the bundles import as 'undici' (tsconfig.json "paths", which ncc follows for every
// module it bundles, @actions/http-client's included). undici's index evaluates all of
// undici — fetch, WebSocket, caches, mocks — on every step's start; lease-gate needs its
// agents and Dispatcher#request. Those load now; every other export loads the whole index
// on first use (octokit's fetch, a proxy agent for @actions/http-client).
const Dispatcher = require('undici/lib/dispatcher/dispatcher.js');
const api = require('undici/lib/api/index.js');

// The index adds request(), stream(), … to every dispatcher; so do we, as it would.
Object.assign(Dispatcher.prototype, api);

const eager = {
  Agent: () => require('undici/lib/dispatcher/agent.js'),
  Dispatcher: () => Dispatcher,
};
const full = () => require('undici/index.js');
// undici's export names, written out so that Node's import of this file from ESM (tsx runs
// src/ in tests) finds them; each becomes a getter below.
exports.Dispatcher =
  exports.Client =
  exports.Pool =
  exports.BalancedPool =
  exports.Agent =
  exports.ProxyAgent =
  exports.EnvHttpProxyAgent =
  exports.RetryAgent =
  exports.RetryHandler =
  exports.DecoratorHandler =
  exports.RedirectHandler =
  exports.createRedirectInterceptor =
  exports.interceptors =
  exports.buildConnector =
  exports.errors =
  exports.util =
  exports.setGlobalDispatcher =
  exports.getGlobalDispatcher =
  exports.fetch =
  exports.Headers =
  exports.Response =
  exports.Request =
  exports.FormData =
  exports.File =
  exports.FileReader =
  exports.setGlobalOrigin =
  exports.getGlobalOrigin =
  exports.caches =
  exports.deleteCookie =
  exports.getCookies =
  exports.getSetCookies =
  exports.setCookie =
  exports.parseMIMEType =
  exports.serializeAMimeType =
  exports.WebSocket =
  exports.CloseEvent =
  exports.ErrorEvent =
  exports.MessageEvent =
  exports.request =
  exports.stream =
  exports.pipeline =
  exports.connect =
  exports.upgrade =
  exports.MockClient =
  exports.MockPool =
  exports.MockAgent =
  exports.mockErrors =
  exports.EventSource =
    undefined;
for (const name of Object.keys(exports)) {
  Object.defineProperty(exports, name, {
    enumerable: true,
    get: () => (eager[name] ?? (() => full()[name]))(),
  });
}
