import { request as nodeRequest, type Agent, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { HttpError } from './errors.js';

/**
 * One request and its answer over node:http, with the two deadlines a signal cannot give:
 * the connection's (TCP, TLS and a proxy's tunnel, until the socket can carry the request)
 * and the body's (the longest pause between two pieces of the answer). The whole
 * exchange's deadline and cancelling come in as `signal`; answers past `maxBytes` are cut.
 */

export interface Exchange {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  agent: Agent;
  signal: AbortSignal;
  /** `[METHOD] "url"` as shown (url-display.ts), for our own failures. */
  call: string;
  connectTimeoutMs: number;
  bodyTimeoutMs: number;
  maxBytes: number;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export function exchange(x: Exchange): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const fail = (error: Error) => {
      clearTimeout(timer);
      // The socket goes with it: half an answer must not be read as the next one's start.
      request.destroy();
      reject(error);
    };
    const deadline = (ms: number, words: string) => {
      clearTimeout(timer);
      timer = setTimeout(
        () => fail(new HttpError(`${x.call}: ${words}`, { failure: 'timeout', call: x.call })),
        ms,
      );
    };
    // The URL's credentials are not sent as Node would (Authorization: Basic): the caller
    // decides its own headers (a health check's Basic, a plane's Bearer).
    const request = nodeRequest({
      ...urlToHttpOptions(x.url),
      auth: null,
      method: x.method,
      headers: x.headers,
      agent: x.agent,
      signal: x.signal,
    });
    request.on('error', fail);
    request.on('socket', (socket: Socket) => whenConnected(socket, () => clearTimeout(timer)));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const paused = `the answer stopped for ${x.bodyTimeoutMs} ms`;
      deadline(x.bodyTimeoutMs, paused);
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > x.maxBytes) {
          fail(
            new HttpError(`${x.call}: answer larger than ${x.maxBytes} bytes`, {
              failure: 'too-large',
              call: x.call,
            }),
          );
          return;
        }
        chunks.push(chunk);
        deadline(x.bodyTimeoutMs, paused);
      });
      response.on('error', fail);
      response.on('close', () => {
        if (!response.complete) {
          const words = 'connection closed by the other side within the answer';
          fail(new HttpError(`${x.call}: ${words}`, { failure: 'network', call: x.call }));
        }
      });
      response.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text });
      });
    });
    deadline(x.connectTimeoutMs, `no connection within ${x.connectTimeoutMs} ms`);
    request.end(x.body);
  });
}

/**
 * `then` once the socket can carry the request: a kept-alive socket (or one Node's proxy
 * support hands over already through its tunnel) at once; a new one at its TCP connect,
 * or at its TLS handshake for https:.
 */
function whenConnected(
  socket: Socket & { encrypted?: boolean; authorized?: boolean },
  then: () => void,
): void {
  if (socket.encrypted === true && (socket.connecting || !socket.authorized))
    socket.once('secureConnect', then);
  else if (socket.connecting) socket.once('connect', then);
  else then();
}
