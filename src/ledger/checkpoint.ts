import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { LeaseGateError, type CauseOptions } from '../errors.js';

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

export class CheckpointError extends LeaseGateError<'checkpoint'> {
  override name = 'CheckpointError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'checkpoint' });
  }
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

/** One signature line: an em dash, the key name, and canonical base64 of key id ‖ signature. */
const SIGNATURE_LINE = /^— ([^\s]+) ([A-Za-z0-9+/]+={0,2})$/;

/**
 * Parses a signed checkpoint and checks its signature by `publicKey`; throws
 * with the reason. The note is exactly origin, size and root; every signature
 * line must be well formed (lines by other keys are skipped, not malformed ones).
 */
export function verifyCheckpoint(text: string, publicKey: KeyObject): Checkpoint {
  const split = text.indexOf('\n\n');
  if (split < 0)
    throw new CheckpointError('checkpoint: no blank line between the note and its signatures');
  const body = text.slice(0, split + 1);
  const lines = body.split('\n');
  lines.pop();
  if (lines.length !== 3) {
    throw new CheckpointError(
      `checkpoint: the note has ${lines.length} lines; expected 3 (origin, tree size, root)`,
    );
  }
  const [origin = '', sizeText = '', rootText = ''] = lines;
  if (!origin) throw new CheckpointError('checkpoint: empty origin line');
  if (!/^(0|[1-9]\d{0,15})$/.test(sizeText))
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
  const rest = text.slice(split + 2);
  if (!rest.endsWith('\n'))
    throw new CheckpointError('checkpoint: the signatures do not end with a newline');
  const id = Buffer.from(keyId(origin, publicKey));
  let signature: Buffer | undefined;
  rest
    .slice(0, -1)
    .split('\n')
    .forEach((line, i) => {
      const match = SIGNATURE_LINE.exec(line);
      const bytes = match && Buffer.from(match[2]!, 'base64');
      if (!match || !bytes || bytes.toString('base64') !== match[2] || bytes.length < 5) {
        throw new CheckpointError(
          `checkpoint: signature line ${i + 1} is malformed (expected '— <name> <base64 key id and signature>'): ${JSON.stringify(line.slice(0, 120))}`,
        );
      }
      if (!signature && match[1] === origin && bytes.subarray(0, 4).equals(id)) signature = bytes;
    });
  if (!signature) throw new CheckpointError('checkpoint: no signature by this public key');
  if (
    signature.length !== 4 + 64 ||
    !verify(null, Buffer.from(body, 'utf8'), publicKey, signature.subarray(4))
  ) {
    throw new CheckpointError('checkpoint: the signature does not verify with this public key');
  }
  return { origin, size: Number(sizeText), root };
}
