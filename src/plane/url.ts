import { isLoopbackHost } from '../http/loopback.js';

export { isLoopbackHost };

/**
 * The plane origin must be https:, or plain http: to this machine only, so the
 * key never crosses a network in clear. Returns the origin without a trailing slash.
 */
export function parsePlaneUrl(raw: string): { ok: true; url: string } | { ok: false } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false };
  }
  const secure = url.protocol === 'https:';
  const loopback = url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (!(secure || loopback) || url.username || url.password || url.search || url.hash) {
    return { ok: false };
  }
  return { ok: true, url: url.href.replace(/\/+$/, '') };
}
