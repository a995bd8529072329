import { request } from 'undici';

/** One JSON POST to a kernel over HTTP, as the kernel tests drive it: status, headers, body. */
export async function postJson(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const res = await request(url + path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: (await res.body.json()) as Record<string, unknown>,
  };
}
