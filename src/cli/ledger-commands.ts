import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurable } from '../fs/durable.js';
import { keyFromEnv } from '../lease/settings.js';
import { exportLedger } from '../ledger/remote.js';
import { BundleReadError, verifyBundleFile } from '../ledger/verify-file.js';
import { BundleError } from '../ledger/verify-error.js';
import { parsePlaneUrl } from '../plane/url.js';
import { EXIT, UsageError, parse, type Output } from './options.js';
import { promoteFlag } from './promote-flag.js';
import { KEYGEN, LEDGER_EXPORT, VERIFY } from './flags/ledger.js';
import { optionsOf } from './flags/table.js';
import { givenApiUrl } from './plane-url.js';
import { untrusted } from '../lease/escape.js';
import { causeText } from '../errors.js';
import { keepHeapSmall } from './small-heap.js';

/** `lease-gate keygen --out DIR`: an Ed25519 key pair for signing the ledger. */
export function keygen(args: string[], io: Output): number {
  const { values } = parse(args, optionsOf(KEYGEN.flags));
  if (!values.out) throw new UsageError('keygen needs --out DIR.');
  const keyFile = join(values.out, 'ledger.key');
  const pubFile = join(values.out, 'ledger.pub');
  if (existsSync(keyFile))
    throw new UsageError(`${keyFile} exists already; refusing to overwrite a signing key.`);
  mkdirSync(values.out, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  writeFileSync(pubFile, publicKey.export({ type: 'spki', format: 'pem' }));
  io.out(`wrote ${keyFile} (private, mode 0600) and ${pubFile}`);
  return EXIT.done;
}

/** `lease-gate ledger export [--api-url U] [--out FILE]`: the kernel's ledger as a bundle. */
export async function ledger(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'export')
    throw new UsageError(`Unknown ledger command '${sub ?? ''}'. Expected 'export'.`);
  const { values } = parse(rest, optionsOf(LEDGER_EXPORT.flags));
  if (values['api-url'] !== undefined && values.url !== undefined)
    throw new UsageError('Give --api-url or its older name --url, not both.');
  const given = givenApiUrl(
    values['api-url'] ?? values.url,
    env,
    values.url === undefined ? '--api-url' : '--url',
  );
  const url = parsePlaneUrl(given.value);
  if (!url.ok)
    throw new UsageError(
      `Invalid ${given.from} '${untrusted(given.value, 200)}'. Expected an https:// origin (plain http:// only for loopback).`,
    );
  const key = keyFromEnv(env).value || env.LEASE_GATE_KERNEL_KEY;
  keepHeapSmall();
  const progress = (count: number, size: number) =>
    io.err(`ledger export: ${count} of ${size} entries`);
  if (values.out) {
    await exportToFile(url.url, key, values.out, progress);
    io.out(`wrote ${values.out} and its public key ${values.out}.pub`);
  } else if (io.write) {
    await exportLedger(url.url, key, io.write, progress);
    await io.write('\n');
  } else {
    let text = '';
    await exportLedger(url.url, key, (piece) => void (text += piece), progress);
    io.out(text);
  }
  return EXIT.done;
}

/**
 * The bundle written to FILE.tmp as its pages arrive, flushed to disk, then
 * renamed to FILE (after FILE.pub): an export that fails or is stopped never
 * leaves a cut bundle under FILE, only FILE.tmp, removed when it fails.
 */
async function exportToFile(
  apiUrl: string,
  key: string | undefined,
  out: string,
  progress: (count: number, size: number) => void,
): Promise<void> {
  // Files to share (mode 0666 less the umask, as before); FILE.pub is in place before FILE.
  const shared = { mode: 0o666 };
  await writeFileDurable(
    out,
    async (write) => {
      const { publicKey } = await exportLedger(apiUrl, key, write, progress);
      await writeFileDurable(`${out}.pub`, publicKey, { ...shared, temp: `${out}.pub.tmp` });
    },
    { ...shared, temp: `${out}.tmp` },
  );
}

/** `lease-gate verify FILE --public-key KEY [--previous CHECKPOINT]`: offline. */
export function verify(args: string[], io: Output): number {
  const { values, positionals } = parse(args, optionsOf(VERIFY.flags), true);
  const promote = promoteFlag(values.promote);
  const [file] = positionals;
  if (!file || !values['public-key'])
    throw new UsageError('verify needs FILE and --public-key KEY.');
  let key;
  try {
    const pem = readFileSync(values['public-key'], 'utf8');
    key = pem.includes('PRIVATE KEY')
      ? createPublicKey(createPrivateKey(pem))
      : createPublicKey(pem);
  } catch (error) {
    throw new UsageError(
      `Cannot read the public key ${values['public-key']}: ${causeText(error)}`,
      { cause: error },
    );
  }
  keepHeapSmall();
  // The bundle is read as a stream (verifyBundleFile): a file too large to hold verifies in
  // memory that does not grow with it. As before, a bundle that is not JSON is said before
  // an unreadable --previous.
  let previous: string | undefined;
  try {
    previous = values.previous ? readFileSync(values.previous, 'utf8') : undefined;
  } catch (error) {
    try {
      verifyBundleFile(file, key);
    } catch (unreadable) {
      if (unreadable instanceof BundleReadError) return unreadableBundle(io, file, unreadable);
    }
    throw error;
  }
  try {
    const result = verifyBundleFile(file, key, {
      previous,
      allowPartial: values['allow-partial'],
      promote,
    });
    const root = Buffer.from(result.root).toString('base64');
    if (values.json)
      io.out(
        JSON.stringify({
          ok: true,
          origin: result.origin,
          size: result.size,
          root,
          first: result.first,
          count: result.count,
        }),
      );
    else
      io.out(
        `OK ${result.origin}: size ${result.size}, root ${root}, ${result.count} entries verified${values.previous ? ', consistent with the previous checkpoint' : ''}`,
      );
    return EXIT.done;
  } catch (error) {
    if (error instanceof BundleReadError) return unreadableBundle(io, file, error);
    if (!(error instanceof BundleError)) throw error;
    io.err(`FAIL: ${error.message}`);
    return EXIT.refused;
  }
}

function unreadableBundle(io: Output, file: string, error: BundleReadError): number {
  io.err(`FAIL: ${file} is not a readable JSON bundle (${error.message})`);
  return EXIT.refused;
}
