import {
  Agent as HttpAgent,
  request as httpRequest,
  type Agent,
  type IncomingHttpHeaders,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isLoopbackHost } from '../http/loopback.js';

/**
 * One HTTP exchange over node:http(s). We measured undici's request keeping a
 * short-lived process alive ~75 ms after its last answer (plus compiling its
 * parser on first use); every job pays start-up twice, so the client uses the
 * built-in stack. Aborting `signal` destroys the request.
 */

export interface Exchange {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal: AbortSignal;
  agent?: Agent | undefined;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** Bodies past this are not ours to read: the plane's answers are small. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * Loopback goes direct: node's global agent sends through HTTP(S)_PROXY when
 * NODE_USE_ENV_PROXY is set (Node 24), and the key must never meet a proxy.
 * An agent made here reads no proxy settings.
 */
let loopbackAgent: HttpAgent | undefined;
function agentFor(url: string, agent: Agent | undefined): Agent | undefined {
  if (agent) return agent;
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'http:' || !isLoopbackHost(hostname)) return undefined;
  return (loopbackAgent ??= new HttpAgent());
}

export function exchange({ method, url, headers, body, signal, agent }: Exchange): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const outgoing = {
      ...headers,
      ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
    };
    const chosen = agentFor(url, agent);
    const req = send(
      url,
      { method, headers: outgoing, signal, ...(chosen ? { agent: chosen } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES)
            req.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
