import { request } from 'undici';

export interface SendOptions {
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** `authorization: Bearer <bearer>`. */
  bearer?: string | undefined;
  /** `prefer: <prefer>` (e.g. `wait=20`, a blocking acquire). */
  prefer?: string | undefined;
  /** The whole exchange is aborted after this long (none when not given). */
  timeoutMs?: number;
}

/** A JSON answer: status, headers, body, the Preference-Applied header and when it came. */
export interface JsonReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  applied: string | string[] | undefined;
  /** performance.now() once the body was read: when a held request was answered. */
  at: number;
}

function headersOf(o: SendOptions, json: boolean): Record<string, string> {
  return {
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...(o.bearer !== undefined ? { authorization: `Bearer ${o.bearer}` } : {}),
    ...(o.prefer ? { prefer: o.prefer } : {}),
    ...o.headers,
  };
}

async function exchange(url: string, init: Parameters<typeof request>[1]): Promise<JsonReply> {
  const res = await request(url, init);
  const body = (await res.body.json()) as Record<string, unknown>;
  return {
    status: res.statusCode,
    headers: res.headers,
    body,
    applied: res.headers['preference-applied'],
    at: performance.now(),
  };
}

/** One JSON POST over HTTP, as the kernel tests drive it. */
export function post(url: string, path: string, body: unknown, o: SendOptions = {}) {
  return exchange(url + path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: headersOf(o, true),
    ...(o.timeoutMs ? { signal: AbortSignal.timeout(o.timeoutMs) } : {}),
  });
}

/** One GET of a JSON answer over HTTP. */
export function getJson(url: string, path: string, o: SendOptions = {}) {
  return exchange(url + path, {
    headers: headersOf(o, false),
    ...(o.timeoutMs ? { signal: AbortSignal.timeout(o.timeoutMs) } : {}),
  });
}

/** What a test of the routes sends: any method (POST unless named), headers beside JSON's type. */
export interface RouteRequest<B> {
  method?: string;
  body?: B | undefined;
  headers?: Record<string, string>;
}

/** One request with its body sent as given (broken JSON too), as the content type of JSON. */
export function sendRaw(url: string, path: string, init: RouteRequest<string> = {}) {
  return exchange(url + path, {
    method: (init.method ?? 'POST') as 'POST',
    body: init.body ?? null,
    headers: { 'content-type': 'application/json', ...init.headers },
  });
}

/** One request with a JSON body (none when not given), as sendRaw sends it. */
export const send = (url: string, path: string, init: RouteRequest<unknown> = {}) =>
  sendRaw(url, path, {
    ...init,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

/** One JSON POST to a kernel with extra headers: status, headers, body. */
export const postJson = (
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) => post(url, path, body, { headers });

/** Only the status and the body of a reply: for a test that asserts the whole of them (toEqual). */
export const statusAndBody = ({ status, body }: JsonReply) => ({ status, body });
