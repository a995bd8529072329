import { exchange } from '../plane/transport.js';
import { LEDGER_PATHS } from '../plane/schema.js';

const TIMEOUT_MS = 30_000;

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

/** The kernel's whole ledger as a bundle, and the public key that checks it. */
export async function fetchLedger(apiUrl: string, key?: string) {
  const [bundle, publicKey] = await Promise.all([
    get(apiUrl, LEDGER_PATHS.bundle, key),
    get(apiUrl, LEDGER_PATHS.publicKey, key),
  ]);
  return { bundle: JSON.parse(bundle) as unknown, bundleText: bundle, publicKey };
}
