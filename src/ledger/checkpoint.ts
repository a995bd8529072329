import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Checkpoints in the C2SP tlog-checkpoint format, signed as C2SP signed notes
 * with Ed25519:
 *
 *   <origin>\n<tree size>\n<base64 root>\n\n— <key name> <base64(key id ‖ signature)>\n
 *
 * The key id is the first 4 bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key).
 */

export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

const ED25519 = 0x01;
const SIGNATURE_PREFIX = '— ';

/** The 32 raw bytes of an Ed25519 public key. */
export function rawPublicKey(key: KeyObject): Uint8Array {
  const publicKey = key.type === 'public' ? key : createPublicKey(key);
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(der.length - 32));
}

/** The log's origin (and key name), bound to its key so that a verifier can expect it. */
export function originFor(key: KeyObject): string {
  const digest = createHash('sha256').update(rawPublicKey(key)).digest('hex');
  return `lease-gate.kernel/${digest.slice(0, 16)}`;
}

export function keyId(name: string, publicKey: KeyObject): Uint8Array {
  const digest = createHash('sha256')
    .update(name, 'utf8')
    .update(Uint8Array.of(0x0a, ED25519))
    .update(rawPublicKey(publicKey))
    .digest();
  return new Uint8Array(digest.subarray(0, 4));
}

export function checkpointBody({ origin, size, root }: Checkpoint): string {
  return `${origin}\n${size}\n${Buffer.from(root).toString('base64')}\n`;
}

export function signCheckpoint(checkpoint: Checkpoint, privateKey: KeyObject): string {
  const publicKey = createPublicKey(privateKey);
  const name = checkpoint.origin;
  const body = checkpointBody(checkpoint);
  const signature = sign(null, Buffer.from(body, 'utf8'), privateKey);
  const blob = Buffer.concat([keyId(name, publicKey), signature]).toString('base64');
  return `${body}\n${SIGNATURE_PREFIX}${name} ${blob}\n`;
}

/** Parses a signed checkpoint and checks its signature by `publicKey`; throws with the reason. */
export function verifyCheckpoint(text: string, publicKey: KeyObject): Checkpoint {
  const split = text.indexOf('\n\n');
  if (split < 0)
    throw new CheckpointError('checkpoint: no blank line between the note and its signatures');
  const body = text.slice(0, split + 1);
  const lines = body.split('\n');
  const [origin = '', sizeText = '', rootText = ''] = lines;
  if (!origin) throw new CheckpointError('checkpoint: empty origin line');
  if (!/^(0|[1-9]\d*)$/.test(sizeText))
    throw new CheckpointError(`checkpoint: tree size '${sizeText}' is not a decimal number`);
  const root = new Uint8Array(Buffer.from(rootText, 'base64'));
  if (root.length !== 32 || Buffer.from(root).toString('base64') !== rootText) {
    throw new CheckpointError('checkpoint: the root is not a base64 SHA-256 hash');
  }
  const expectedOrigin = originFor(publicKey);
  if (origin !== expectedOrigin) {
    throw new CheckpointError(
      `checkpoint: origin '${origin}' is not this key's log ('${expectedOrigin}')`,
    );
  }
  const id = Buffer.from(keyId(origin, publicKey));
  const signatures = text
    .slice(split + 2)
    .split('\n')
    .filter(Boolean);
  for (const line of signatures) {
    if (!line.startsWith(SIGNATURE_PREFIX))
      throw new CheckpointError(`checkpoint: malformed signature line '${line}'`);
    const [name, blob = ''] = line.slice(SIGNATURE_PREFIX.length).split(' ');
    const bytes = Buffer.from(blob, 'base64');
    if (name !== origin || bytes.length !== 4 + 64 || !bytes.subarray(0, 4).equals(id)) continue;
    if (verify(null, Buffer.from(body, 'utf8'), publicKey, bytes.subarray(4))) {
      return { origin, size: Number(sizeText), root };
    }
    throw new CheckpointError('checkpoint: the signature does not verify with this public key');
  }
  throw new CheckpointError('checkpoint: no signature by this public key');
}
