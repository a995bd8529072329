import type { HttpClient } from './client.js';
import { HttpError } from './errors.js';
import { urlForDisplay } from './url-display.js';

/**
 * A `fetch` over the one HTTP client, for libraries that take a fetch of their own
 * (`@octokit/request`'s `request.fetch`, which `@octokit/auth-app` uses for the App's
 * token exchange): their requests then keep the client's timeouts, proxy rules
 * (loopback never proxied) and bounded answers instead of the global fetch's.
 * Only what those callers send is taken: GET or POST, a string body, plain headers.
 */
export function fetchOver(http: HttpClient): typeof fetch {
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = (init.method ?? 'GET').toUpperCase();
    const call = `[${method}] "${urlForDisplay(url)}"`;
    if (method !== 'GET' && method !== 'POST') {
      throw new HttpError(`${call}: only GET and POST go through this client`, {
        failure: 'network',
        call,
      });
    }
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
      throw new HttpError(`${call}: only a text body goes through this client`, {
        failure: 'network',
        call,
      });
    }
    const answer = await http.send({
      method,
      url,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: init.body ?? undefined,
      signal: init.signal ?? undefined,
    });
    if (answer.status < 200 || answer.status > 599) {
      throw new HttpError(`${call}: answered status ${answer.status}`, {
        failure: 'network',
        call,
      });
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
        headers.append(name, one);
    }
    // A Response may not carry a body with these statuses.
    const empty = [204, 205, 304].includes(answer.status);
    const response = new Response(empty ? null : answer.text, { status: answer.status, headers });
    Object.defineProperty(response, 'url', { value: url });
    return response;
  };
}
