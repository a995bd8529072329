import { setImmediate as nextTurn } from 'node:timers/promises';
import { LEDGER_PATHS } from '../../plane/schema.js';
import type { Ledger } from '../../ledger/ledger.js';
import { ApiRefusal, type AppRequest, type AppResponse } from './api.js';

export const DEFAULT_PAGE = 1_000;
export const MAX_PAGE = 10_000;
/** Entries built between two yields to the event loop, so renewals keep flowing. */
const SLICE = 250;

/**
 * The ledger's routes. An export is pinned to the ledger's size S when it
 * starts; every page carries the checkpoint of S and proofs against it, and a
 * cursor to the next page.
 */
export function ledgerRoutes(
  ledger: Ledger,
): Record<string, (req: AppRequest) => Promise<AppResponse>> {
  const signed = () => {
    if (!ledger.signs || !ledger.publicKey) {
      throw new ApiRefusal(
        'This kernel runs without a signing key: it keeps its log but signs no checkpoint.',
        { status: 404, reason: 'no_signing_key' },
      );
    }
    return ledger.publicKey;
  };
  return {
    [`GET ${LEDGER_PATHS.checkpoint}`]: async () => {
      signed();
      const size = ledger.size;
      return {
        status: 200,
        body: await ledger.signedCheckpoint(size),
      };
    },
    [`GET ${LEDGER_PATHS.publicKey}`]: () =>
      Promise.resolve({
        status: 200,
        body: String(signed().export({ type: 'spki', format: 'pem' })),
      }),
    [`GET ${LEDGER_PATHS.bundle}`]: (req) => {
      signed();
      const { size, from, end, limit } = pageRequest(req.query, ledger.size);
      const to = Math.min(end, from + limit);
      const next = to < end ? encodeCursor(size, to, end) : null;
      return Promise.resolve({ status: 200, body: bundlePage(ledger, size, from, to, next) });
    },
  };
}

function pageRequest(query: URLSearchParams, currentSize: number) {
  const limit = whole(query.get('limit'), DEFAULT_PAGE, 'limit');
  if (limit < 1 || limit > MAX_PAGE) {
    throw new ApiRefusal(`limit: expected a whole number from 1 to ${MAX_PAGE}`, {
      status: 400,
      reason: 'bad_request',
    });
  }
  const cursor = query.get('cursor');
  if (cursor !== null) {
    const decoded = decodeCursor(cursor);
    if (
      !decoded ||
      decoded.size > currentSize ||
      decoded.from > decoded.end ||
      decoded.end > decoded.size
    ) {
      throw new ApiRefusal('cursor: expected the `next` value of an earlier page', {
        status: 400,
        reason: 'bad_request',
      });
    }
    return { ...decoded, limit };
  }
  const from = whole(query.get('from'), 0, 'from');
  const end = whole(query.get('to'), currentSize, 'to');
  if (from > end || end > currentSize) {
    throw new ApiRefusal(`from/to: expected 0 ≤ from ≤ to ≤ ${currentSize}`, {
      status: 400,
      reason: 'bad_request',
    });
  }
  return { size: currentSize, from, end, limit };
}

function whole(value: string | null, fallback: number, name: string): number {
  if (value === null) return fallback;
  if (!/^\d{1,15}$/.test(value))
    throw new ApiRefusal(`${name}: expected a whole number`, {
      status: 400,
      reason: 'bad_request',
    });
  return Number(value);
}

const encodeCursor = (size: number, from: number, end: number) =>
  Buffer.from(`v1.${size}.${from}.${end}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string) {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
  const match = /^v1\.(\d{1,15})\.(\d{1,15})\.(\d{1,15})$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  if (!match) return undefined;
  return { size: Number(match[1]), from: Number(match[2]), end: Number(match[3]) };
}

/** The page as JSON pieces, yielding to the event loop between slices. */
async function* bundlePage(
  ledger: Ledger,
  size: number,
  from: number,
  to: number,
  next: string | null,
) {
  const checkpoint = await ledger.signedCheckpoint(size);
  yield `{"checkpoint":${JSON.stringify(checkpoint)},"entries":[`;
  for (let start = from; start < to; start += SLICE) {
    if (start > from) await nextTurn();
    const end = Math.min(to, start + SLICE);
    const slice = await ledger.read(start, end, size, () => ledger.pageJson(start, end, size));
    yield `${start > from ? ',' : ''}${slice.join(',')}`;
  }
  yield `],"next":${JSON.stringify(next)}}`;
}
