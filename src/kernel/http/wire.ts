import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AppResponse } from './api.js';

/** A notice and its fields (the request's id): a JSON log line carries them, text shows the line. */
export type NoticeLog = (line: string, fields?: Readonly<Record<string, string>>) => void;

/**
 * The adapter's words at the wire: the request's id and the notices that carry it, a refused
 * credential's line, a path made safe for a log line, and malformed HTTP's answer.
 */

/**
 * A notice about this request, with its id: the client's X-Request-Id when it is a plain
 * token, else a new one, said back so a client's report and the kernel's log line match.
 */
export function noticeFor(req: IncomingMessage, res: ServerResponse, log: NoticeLog) {
  const requestId = requestIdOf(req);
  res.setHeader('x-request-id', requestId);
  return (line: string) => log(line, { requestId });
}

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : randomUUID();
}

/**
 * A credential refused (401, 403) as `401 unauthorized`: an operator's business (a leaked or
 * rotated key, a wrong audience). The reason word only, never the message: that may quote
 * the request, and never what was presented.
 */
export function refusalOf(answer: AppResponse): string | undefined {
  if (answer.status !== 401 && answer.status !== 403) return undefined;
  const reason = (answer.body as { reason?: unknown } | null)?.reason;
  const word = typeof reason === 'string' && /^[a-z_-]{1,40}$/.test(reason) ? reason : 'refused';
  return `${answer.status} ${word}`;
}

/** A path from the wire, made safe for one log line. */
export const escape = (text: string) => JSON.stringify(text.slice(0, 200)).slice(1, -1);

/** Malformed HTTP gets a JSON answer too, then the connection closes. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'The request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request took too long to arrive.']
        : [400, 'bad_request', 'The request is not well-formed HTTP/1.1.'];
  const body = JSON.stringify({ ok: false, reason, message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
