import { clipText } from './schema.js';

/** A body that is not JSON reads as undefined: the caller decides what that means for its status. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** One field of a JSON answer, still unchecked: the caller's schema or type test reads it. */
export function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && name in body
    ? Object.getOwnPropertyDescriptor(body, name)?.value
    : undefined;
}

/** The plane's own words on a failure (its `message`, else its `reason`), clipped to one line. */
export function bodyMessage(body: unknown): string | undefined {
  const message = field(body, 'message');
  if (typeof message === 'string') return clipText(message, 300);
  const reason = field(body, 'reason');
  if (typeof reason === 'string') return clipText(reason, 100);
  return undefined;
}
