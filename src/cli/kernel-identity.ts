import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { causeText } from '../errors.js';
import { createFileOnce } from '../fs/create-once.js';
import { originFor } from '../ledger/checkpoint.js';
import { StartRefusedError } from '../kernel/store/store-error.js';
import { UsageError } from './options.js';

/** Where a file kernel without --signing-key keeps the key it made: beside its log. */
export const signingKeyFileOf = (logFile: string) => `${logFile}.key`;

export interface KernelIdentity {
  key: KeyObject;
  /** The start-up line: which key signs, by its origin and file (never the key itself). */
  line: string;
}

/**
 * The ledger's signing key: --signing-key FILE; else, for a kernel with a log, the key
 * beside it (made once, at its first start, and kept); else one made for this run. A
 * durable ledger signed by a new key at each restart would break every `verify --previous`.
 */
export function kernelIdentity(flagFile: string | undefined, logFile?: string): KernelIdentity {
  if (flagFile) {
    const key = readKey(flagFile, (why, cause) => new UsageError(why, { cause }));
    return { key, line: `ledger ${origin(key)} signs with --signing-key ${flagFile}` };
  }
  if (logFile) return keptKey(signingKeyFileOf(logFile));
  const key = generateKeyPairSync('ed25519').privateKey;
  const pem = String(publicOf(key).export({ type: 'spki', format: 'pem' })).trim();
  return {
    key,
    line: `ledger ${origin(key)} signs with a key made for this run; its public key:\n${pem}`,
  };
}

/** The key in `file`, made there now if there is none (of two starts at once, one makes it). */
function keptKey(file: string): KernelIdentity {
  const made = generateKeyPairSync('ed25519').privateKey;
  let created: boolean;
  try {
    created = createFileOnce(file, String(made.export({ type: 'pkcs8', format: 'pem' })));
  } catch (error) {
    throw new StartRefusedError(
      `Cannot make the ledger's signing key ${file}: ${causeText(error)}. Give one with --signing-key FILE (lease-gate keygen --out DIR).`,
      { cause: error },
    );
  }
  const key = created ? made : readKey(file, (why, cause) => new StartRefusedError(why, { cause }));
  const how = created ? 'made now, at its first start' : 'kept from its first start';
  return {
    key,
    line: `ledger ${origin(key)} signs with the key in ${file} (${how}; --signing-key FILE names another)`,
  };
}

function readKey(file: string, refuse: (why: string, cause?: unknown) => Error): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file, 'utf8'));
  } catch (error) {
    throw refuse(`Cannot read the signing key ${file}: ${causeText(error)}`, error);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw refuse(`The signing key ${file} is not an Ed25519 key.`);
  return key;
}

const publicOf = (key: KeyObject) => createPublicKey(key);
const origin = (key: KeyObject) => originFor(publicOf(key));
