import type { CommandSpec } from './table.js';

/** The ledger's commands: a signing key, a bundle fetched, a bundle checked offline. */

export const KEYGEN = {
  usage: 'lease-gate keygen',
  flags: { out: { type: 'string', value: 'DIR', required: true } },
  about: `  Write an Ed25519 ledger signing key: DIR/ledger.key (PKCS#8 PEM, mode 0600) and DIR/ledger.pub (SPKI PEM).`,
} as const satisfies CommandSpec;

export const LEDGER_EXPORT = {
  usage: 'lease-gate ledger export',
  flags: {
    'api-url': { type: 'string', value: 'U' },
    // Said in the prose, as the older name it is.
    url: { type: 'string', value: 'U', synopsis: false },
    out: { type: 'string', value: 'FILE' },
  },
  about: `  Fetch the kernel's ledger bundle (and its public key, to FILE.pub). --url U is the older name of --api-url.`,
} as const satisfies CommandSpec;

export const VERIFY = {
  usage: 'lease-gate verify',
  before: 'FILE',
  flags: {
    'public-key': { type: 'string', value: 'KEY', required: true },
    previous: { type: 'string', value: 'CHECKPOINT' },
    'allow-partial': { type: 'boolean', default: false },
    promote: { type: 'string', multiple: true, default: [], value: 'FROM->TO' },
    json: { type: 'boolean', default: false },
  },
  about: `  Check a ledger bundle offline: signature, origin, every inclusion proof, order, timestamps,
  completeness, and (with --previous) that an older checkpoint's entries were not rewritten; with
  --promote (as the kernel's), that every grant of TO names a commit that completed FROM before it.`,
} as const satisfies CommandSpec;
