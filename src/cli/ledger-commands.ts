import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fetchLedger } from '../ledger/remote.js';
import { BundleError, verifyBundle } from '../ledger/verify.js';
import { parsePlaneUrl } from '../plane/url.js';
import { EXIT, UsageError, parse, type Output } from './options.js';
import { causeText } from '../errors.js';

/** `lease-gate keygen --out DIR`: an Ed25519 key pair for signing the ledger. */
export async function keygen(args: string[], io: Output): Promise<number> {
  const { values } = parse(args, { out: { type: 'string' } });
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

/** `lease-gate ledger export [--url U] [--out FILE]`: the kernel's ledger as a bundle. */
export async function ledger(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'export')
    throw new UsageError(`Unknown ledger command '${sub ?? ''}'. Expected 'export'.`);
  const { values } = parse(rest, { url: { type: 'string' }, out: { type: 'string' } });
  const raw = values.url ?? env.INTRAMEDIAL_API_URL ?? 'http://127.0.0.1:8787';
  const url = parsePlaneUrl(raw);
  if (!url.ok)
    throw new UsageError(
      `Invalid --url '${raw}'. Expected an https:// origin (plain http:// only for loopback).`,
    );
  const { bundleText, publicKey } = await fetchLedger(
    url.url,
    env.LEASE_GATE_KEY || env.INTRAMEDIAL_KEY || env.LEASE_GATE_KERNEL_KEY,
    (count, size) => io.err(`ledger export: ${count} of ${size} entries`),
  );
  if (values.out) {
    writeFileSync(values.out, bundleText);
    writeFileSync(`${values.out}.pub`, publicKey);
    io.out(`wrote ${values.out} and its public key ${values.out}.pub`);
  } else {
    io.out(bundleText);
  }
  return EXIT.done;
}

/** `lease-gate verify FILE --public-key KEY [--previous CHECKPOINT]`: offline. */
export async function verify(args: string[], io: Output): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      'public-key': { type: 'string' },
      previous: { type: 'string' },
      'allow-partial': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    true,
  );
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
  let bundle: unknown;
  try {
    bundle = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    io.err(`FAIL: ${file} is not a readable JSON bundle (${causeText(error)})`);
    return EXIT.refused;
  }
  try {
    const previous = values.previous ? readFileSync(values.previous, 'utf8') : undefined;
    const result = verifyBundle(bundle, key, { previous, allowPartial: values['allow-partial'] });
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
    if (!(error instanceof BundleError)) throw error;
    io.err(`FAIL: ${error.message}`);
    return EXIT.refused;
  }
}
