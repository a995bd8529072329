import * as z from 'zod/mini';
import { createHttpClient, type HttpClient } from '../http/client.js';
import { LeaseGateError } from '../http/errors.js';
import { LEDGER_PATHS } from '../plane/schema.js';

/**
 * Reads a kernel's ledger over HTTP through the one HTTP client (src/http/):
 * its proxies, timeouts and answer cap, and its errors, which every face
 * already prints as one line.
 */

/** A page may take this long: a large ledger's pages carry long proofs. */
const TIMEOUT_MS = 30_000;
/**
 * Entries asked per page: a page of a large ledger costs about 1 KB an entry
 * (the proofs grow with the log), so 500 stay well under the 4 MiB the
 * client accepts in one answer.
 */
const PAGE = 500;
/** An export stops after this many pages (10 million entries). */
const MAX_PAGES = 20_000;

/** A ledger answer that is not what the kernel serves: a broken or foreign server. */
export class LedgerFetchError extends LeaseGateError {
  override name = 'LedgerFetchError';
}

const pageSchema = z.object({
  checkpoint: z.string(),
  entries: z.array(z.unknown()),
  next: z.optional(z.nullable(z.string())),
});

async function get(http: HttpClient, url: string, key: string | undefined): Promise<string> {
  const answer = await http.send({
    method: 'GET',
    url,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    timeoutMs: TIMEOUT_MS,
  });
  if (answer.status !== 200) {
    const text = answer.text.replace(/[\r\n]+/g, ' ').slice(0, 200);
    throw new LedgerFetchError(`[GET] "${url}": ${answer.status} ${text}`);
  }
  return answer.text;
}

function readPage(text: string, where: string): z.infer<typeof pageSchema> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LedgerFetchError(`${where}: not a ledger bundle page (not JSON)`);
  }
  const page = pageSchema.safeParse(json);
  if (!page.success) throw new LedgerFetchError(`${where}: not a ledger bundle page`);
  return page.data;
}

/**
 * The kernel's whole ledger as one bundle, following the pages of one export
 * (every page carries the same checkpoint), and the public key that checks it.
 */
export async function fetchLedger(
  apiUrl: string,
  key?: string,
  progress?: (entries: number, size: number) => void,
) {
  const http = createHttpClient({ bodyTimeoutMs: TIMEOUT_MS });
  try {
    const publicKey = await get(http, apiUrl + LEDGER_PATHS.publicKey, key);
    let path = `${LEDGER_PATHS.bundle}?limit=${PAGE}`;
    const entries: unknown[] = [];
    let checkpoint: string | undefined;
    for (let pages = 0; ; pages += 1) {
      if (pages >= MAX_PAGES) {
        throw new LedgerFetchError(`the ledger export did not end within ${MAX_PAGES} pages`);
      }
      const page = readPage(await get(http, apiUrl + path, key), apiUrl + path);
      if (checkpoint !== undefined && page.checkpoint !== checkpoint) {
        throw new LedgerFetchError('the kernel changed the checkpoint in the middle of one export');
      }
      checkpoint = page.checkpoint;
      for (const entry of page.entries) entries.push(entry);
      progress?.(entries.length, Number(checkpoint.split('\n')[1]));
      if (page.next === null || page.next === undefined) break;
      path = `${LEDGER_PATHS.bundle}?cursor=${encodeURIComponent(page.next)}&limit=${PAGE}`;
    }
    const bundle = { checkpoint, entries };
    return { bundle: bundle as unknown, bundleText: JSON.stringify(bundle), publicKey };
  } finally {
    await http.close();
  }
}
