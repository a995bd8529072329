import * as nodeModule from 'node:module';

const STUB = 'lease-gate:no-http2';

/**
 * For the keeper only: `node:http2` answers as an empty module. undici's client file loads
 * node:http2 whether or not a client may speak HTTP/2, and node:http2 loads node:tls and
 * node:crypto; lease-gate's agents never allow HTTP/2 (no `allowH2`), and undici itself
 * falls back to `{ constants: {} }` where node:http2 cannot load. Over a plain-http plane the
 * keeper then never loads TLS at all; over https it loads node:tls when it connects, as
 * before. Measured: 4.4 MiB less peak RSS (docs/performance.md, keeper). Node before
 * 22.15 has no synchronous hooks: there node:http2 loads as it always did.
 */
export function withoutHttp2(): void {
  const registerHooks = (nodeModule as Partial<typeof nodeModule>).registerHooks;
  if (typeof registerHooks !== 'function') return;
  registerHooks({
    resolve: (specifier, context, next) =>
      specifier === 'node:http2' || specifier === 'http2'
        ? { url: STUB, format: 'commonjs', shortCircuit: true }
        : next(specifier, context),
    load: (url, context, next) =>
      url === STUB
        ? { format: 'commonjs', source: 'module.exports = { constants: {} };', shortCircuit: true }
        : next(url, context),
  });
}
