import { exchange } from '../plane/transport.js';
import { LEDGER_PATHS } from '../plane/schema.js';

const TIMEOUT_MS = 30_000;
/**
 * Entries asked per page: a page of a large ledger costs about 1 KB an entry
 * (the proofs grow with the log), so 500 stay well under the 1 MB the
 * transport accepts in one answer.
 */
const PAGE = 500;
/** An export stops after this many pages (10 million entries). */
const MAX_PAGES = 20_000;

async function get(apiUrl: string, path: string, key: string | undefined): Promise<string> {
  const { status, text } = await exchange({
    method: 'GET',
    url: apiUrl + path,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (status !== 200) throw new Error(`[GET] "${apiUrl}${path}": ${status} ${text.slice(0, 200)}`);
  return text;
}

interface Page {
  checkpoint: string;
  entries: unknown[];
  next: string | null;
}

function readPage(text: string, where: string): Page {
  const page = JSON.parse(text) as Partial<Page> | null;
  if (
    !page ||
    typeof page.checkpoint !== 'string' ||
    !Array.isArray(page.entries) ||
    !(page.next === null || page.next === undefined || typeof page.next === 'string')
  ) {
    throw new Error(`${where}: not a ledger bundle page`);
  }
  return { checkpoint: page.checkpoint, entries: page.entries, next: page.next ?? null };
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
  const publicKey = await get(apiUrl, LEDGER_PATHS.publicKey, key);
  let path = `${LEDGER_PATHS.bundle}?limit=${PAGE}`;
  const entries: unknown[] = [];
  let checkpoint: string | undefined;
  for (let pages = 0; ; pages += 1) {
    if (pages >= MAX_PAGES)
      throw new Error(`the ledger export did not end within ${MAX_PAGES} pages`);
    const page = readPage(await get(apiUrl, path, key), apiUrl + path);
    if (checkpoint !== undefined && page.checkpoint !== checkpoint) {
      throw new Error('the kernel changed the checkpoint in the middle of one export');
    }
    checkpoint = page.checkpoint;
    entries.push(...page.entries);
    progress?.(entries.length, Number(checkpoint.split('\n')[1]));
    if (page.next === null) break;
    path = `${LEDGER_PATHS.bundle}?cursor=${encodeURIComponent(page.next)}&limit=${PAGE}`;
  }
  const bundle = { checkpoint, entries };
  return { bundle: bundle as unknown, bundleText: JSON.stringify(bundle), publicKey };
}
