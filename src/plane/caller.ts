import { withRetries, type Retrying } from './retry-loop.js';
import type { CallOptions, RawAnswer, Send } from './send.js';

/**
 * What each route's call is made with: one attempt with the client's credential, the same
 * retried, and the call's name for messages. Built once per client by createPlaneClient.
 */
export interface Caller {
  /** One attempt, not retried (a watch). */
  once(
    method: 'GET' | 'POST',
    path: string,
    payload: unknown,
    call: CallOptions,
  ): Promise<RawAnswer>;
  /** A POST retried while it fails transiently; `bearer` replaces the client's credential. */
  post(path: string, payload: unknown, call: CallOptions, bearer?: string): Promise<RawAnswer>;
  /** A GET retried while it fails transiently. */
  get(path: string, call: CallOptions): Promise<RawAnswer>;
  /** `[METHOD] "url"`, as the sender names the call in its errors. */
  name(method: 'GET' | 'POST', path: string): string;
}

export function createCaller(
  apiUrl: string,
  send: Send,
  key: string | undefined,
  retrying: Retrying,
): Caller {
  return {
    once: (method, path, payload, call) => send(method, path, payload, call, key),
    post: (path, payload, call, bearer = key) =>
      withRetries(() => send('POST', path, payload, call, bearer), call, retrying),
    get: (path, call) => withRetries(() => send('GET', path, undefined, call, key), call, retrying),
    name: (method, path) => `[${method}] "${apiUrl}${path}"`,
  };
}

/** A call the plane never holds (`Prefer: wait` is for lease requests and watches). */
export function unheld(call: CallOptions): CallOptions {
  return { ...call, waitSeconds: undefined };
}
