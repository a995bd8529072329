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
for (const name of require('./undici-exports.json')) {
  Object.defineProperty(exports, name, {
    enumerable: true,
    get: () => (eager[name] ?? (() => full()[name]))(),
  });
}
