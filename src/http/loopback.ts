const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * This machine, as a URL's (normalized) hostname names it: `localhost`, all of
 * 127.0.0.0/8 and `[::1]`. Plain http: is allowed only to these, and the HTTP
 * clients never send a request to them through a proxy.
 */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
