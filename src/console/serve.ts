import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Serves the operator's console and the playground: a few static files built
 * by `scripts/build-console.mjs` into `dist/console/`. The pages read the
 * kernel only through its HTTP routes, from the same origin.
 */

export interface ConsoleOptions {
  /** Where the built pages are; found next to the running module when unset. */
  assetsDir?: string;
}

/** No inline script or style, nothing from another origin, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Request path → built file. Nothing else is served, so no path reaches the file system. */
const PAGES: Record<string, string> = {
  '/': 'index.html',
  '/console/': 'index.html',
  '/playground': 'playground.html',
  '/playground/': 'playground.html',
  '/console/console.js': 'console.js',
  '/console/playground.js': 'playground.js',
  '/console/console.css': 'console.css',
};

/** A lock, drawn inline: served at /favicon.svg and /favicon.ico (browsers ask for the latter). */
const FAVICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="3" y="7" width="10" height="8" rx="1" fill="#3b6fd8"/><path d="M5 7V5a3 3 0 0 1 6 0v2" fill="none" stroke="#3b6fd8" stroke-width="1.6"/></svg>',
);

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

export function defaultAssetsDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  // dist/cli/index.js → dist/console; src/console/serve.ts → dist/console.
  const candidates = [join(here, '..', 'console'), join(here, '..', '..', 'dist', 'console')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

export function createConsole(
  options: ConsoleOptions = {},
): (req: IncomingMessage, res: ServerResponse) => boolean {
  // Read on first use: a kernel nobody opens the console of pays nothing.
  const cache = new Map<string, Buffer | null>();
  const read = (file: string) => {
    if (!cache.has(file)) {
      const dir = options.assetsDir ?? defaultAssetsDir();
      cache.set(file, dir && existsSync(join(dir, file)) ? readFileSync(join(dir, file)) : null);
    }
    return cache.get(file) ?? null;
  };

  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path === '/favicon.svg' || path === '/favicon.ico') {
      res.writeHead(200, {
        'content-type': 'image/svg+xml',
        'content-length': FAVICON.length,
        'x-content-type-options': 'nosniff',
        'cache-control': 'max-age=86400',
      });
      res.end(req.method === 'HEAD' ? undefined : FAVICON);
      return true;
    }
    const file = PAGES[path];
    if (!file) return false;
    const body = read(file);
    const headers = {
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cache-control': 'no-cache',
    };
    if (!body) {
      const text = 'The console is not built: run npm run build.\n';
      res.writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : text);
      return true;
    }
    const type = TYPES[file.slice(file.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
    res.writeHead(200, { ...headers, 'content-type': type, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
