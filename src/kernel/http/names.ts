import { InternalError } from '../../errors.js';
import { isLoopbackHost } from '../../plane/url.js';

/**
 * The names this kernel answers to, and the origins it calls its own. A
 * request's `Host` must be a loopback name (127.0.0.0/8, [::1], localhost),
 * the address it listens on, or a host of a `--public-url`: a web page that
 * rebinds its own name to 127.0.0.1 sends its own name as `Host`, and is
 * answered 421. Any port is accepted, so a TCP proxy or port mapping in front
 * works; a port does not make a name ours or not. A change must come from one
 * of our own origins: `http://` + a loopback or listen `Host` (the page this
 * kernel served there), or a `--public-url` origin exactly (`https://` behind
 * a TLS proxy).
 */
export class KernelNames {
  private readonly hostnames = new Set<string>();
  private readonly origins = new Set<string>();
  private listenHostname: string | undefined;

  constructor(publicUrls: readonly string[] = []) {
    for (const raw of publicUrls) {
      const url = parsePublicUrl(raw);
      if (!url) throw new InternalError(`not a public URL: ${raw}`);
      this.hostnames.add(url.hostname);
      this.origins.add(url.origin);
    }
  }

  /** Told once the server listens (its URL, as `http://127.0.0.1:8787`). */
  listening(url: string): void {
    this.listenHostname = new URL(url).hostname;
  }

  /** Whether `Host` names this kernel. No `Host` at all (HTTP/1.0) is no browser's. */
  hostAllowed(host: string | undefined): boolean {
    if (host === undefined) return true;
    const hostname = hostnameOf(host);
    return hostname !== undefined && (this.isDirect(hostname) || this.hostnames.has(hostname));
  }

  /** Whether `origin` is one of this kernel's own, for a request that came with `host`. */
  originAllowed(origin: string, host: string | undefined): boolean {
    if (this.origins.has(origin)) return true;
    if (host === undefined) return false;
    const hostname = hostnameOf(host);
    return hostname !== undefined && this.isDirect(hostname) && origin === `http://${host}`;
  }

  /** The origins a change may come from, for a message. */
  describe(host: string | undefined): string {
    const own = host !== undefined && this.hostAllowed(host) ? [`http://${host}`] : [];
    return [...new Set([...own, ...this.origins])].join(', ') || 'this kernel’s own';
  }

  private isDirect(hostname: string): boolean {
    return isLoopbackHost(hostname) || hostname === this.listenHostname;
  }
}

/** `--public-url`: an http(s) origin, nothing after it but an optional `/`. */
export function parsePublicUrl(raw: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const plain = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return (url.protocol === 'https:' || url.protocol === 'http:') && plain ? url : undefined;
}

export const PUBLIC_URL_FORM =
  'an http:// or https:// origin such as https://gate.example (no path, query or credentials)';

/** The hostname of a `Host` header (lower case, IPv6 in brackets), or undefined when malformed. */
function hostnameOf(host: string): string | undefined {
  if (!/^[A-Za-z0-9.\-[\]:]{1,300}$/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname || undefined;
  } catch {
    return undefined;
  }
}
