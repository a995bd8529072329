import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import type { Output } from '../src/cli/options.js';
import { originFor, signCheckpoint } from '../src/ledger/checkpoint.js';
import { MerkleFrontier } from '../src/ledger/frontier.js';
import { Ledger, type LedgerBundle, type NewEntry } from '../src/ledger/ledger.js';
import { MerkleTree, equalHashes, leafHash } from '../src/ledger/merkle.js';
import { fetchLedger } from '../src/ledger/remote.js';
import { BundleReadError, verifyBundleFile } from '../src/ledger/verify-file.js';
import { verifyBundle, type VerifyOptions } from '../src/ledger/verify.js';
import { startKernelProcess, type KernelProcess } from './support/kernel-process.js';
import { causeText } from '../src/errors.js';

/** `ledger export` and `verify` stream: the same bytes and the same verdicts as whole. */

const dir = mkdtempSync(join(tmpdir(), 'lease-gate-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A valid history of about `count` entries over 40 resources: grants, renewals, ends, a freeze. */
function history(privateKey: KeyObject, count: number, twoHoldersAt = -1) {
  const ledger = new Ledger(privateKey);
  const events: NewEntry[] = [];
  let fence = 0;
  for (let n = 0; events.length < count; n += 1) {
    const resource = `lock:stream/${n % 40}`;
    const common = { resource, actorDid: `did:web:agent${n % 7}`, leaseId: `lease_${n}` };
    const atMs = 10_000 + n * 10;
    fence += 1;
    events.push({ ...common, fence, kind: 'grant', atMs, expiresAtMs: atMs + 60_000 });
    if (n === twoHoldersAt) {
      const other = { ...common, leaseId: `lease_${n}_b`, actorDid: 'did:web:mallory' };
      events.push({ ...other, fence: (fence += 1), kind: 'grant', atMs: atMs + 1 });
    }
    if (n % 3 === 0) events.push({ ...common, fence, kind: 'renew', atMs: atMs + 2 });
    events.push({ ...common, fence, kind: n % 5 === 0 ? 'revoke' : 'release', atMs: atMs + 3 });
    if (n === 100) {
      const operator = { resource, actorDid: 'did:web:ops', leaseId: '', fence: 0 };
      events.push({ ...operator, kind: 'freeze', atMs: atMs + 4, reason: 'audit' });
      events.push({ ...operator, kind: 'unfreeze', atMs: atMs + 5 });
    }
  }
  const prepared = ledger.prepare(events);
  ledger.accept(prepared.entries, prepared.lines);
  return { ledger, text: prepared.text };
}

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const { ledger } = history(privateKey, 3_000);
const bundle = ledger.bundle();

let files = 0;
function fileOf(text: string): string {
  const file = join(dir, `bundle-${(files += 1)}.json`);
  writeFileSync(file, text);
  return file;
}

/** The verdict as a value: the result, or the error's class and message. */
function verdict(run: () => unknown) {
  try {
    return { ok: run() };
  } catch (error) {
    const name = error instanceof Error ? error.name : typeof error;
    return { refused: `${name}: ${causeText(error)}` };
  }
}

/** Whole (JSON.parse, verifyBundle) and streamed, with no whole reading to fall back on. */
function both(text: string, options: VerifyOptions = {}) {
  const file = fileOf(text);
  const whole = verdict(() => {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new BundleReadError(causeText(error));
    }
    return verifyBundle(raw, publicKey, options);
  });
  const streamed = verdict(() => verifyBundleFile(file, publicKey, options, 0));
  const fallback = verdict(() => verifyBundleFile(file, publicKey, options));
  return { whole, streamed, fallback, file };
}

const tamper = (change: (b: LedgerBundle) => void) => {
  const copy = structuredClone(bundle);
  change(copy);
  return JSON.stringify(copy);
};

describe('verify, streamed', () => {
  it('gives the same verdict as whole for a bundle of a few thousand entries, in any layout', () => {
    expect(bundle.entries.length).toBeGreaterThanOrEqual(3_000);
    const layouts = [
      JSON.stringify(bundle),
      JSON.stringify(bundle, null, 2),
      // The checkpoint after the entries, and a key verify does not read.
      JSON.stringify({ entries: bundle.entries, next: null, checkpoint: bundle.checkpoint }),
    ];
    for (const text of layouts) {
      const { whole, streamed, fallback } = both(text);
      expect(whole.ok).toMatchObject({ size: bundle.entries.length, first: 0 });
      expect(streamed).toEqual(whole);
      expect(fallback).toEqual(whole);
    }
    const range = both(JSON.stringify(ledger.bundle(700, 1_900)), { allowPartial: true });
    expect(range.whole.ok).toMatchObject({ first: 700, count: 1_200 });
    expect(range.streamed).toEqual(range.whole);
    const older = both(JSON.stringify(bundle), { previous: ledger.checkpoint(1_234) });
    expect(older.whole.ok).toMatchObject({ size: bundle.entries.length });
    expect(older.streamed).toEqual(older.whole);
  });

  const other = history(generateKeyPairSync('ed25519').privateKey, 3_000).ledger;
  const refusals: [string, string, RegExp, VerifyOptions?][] = [
    [
      'a tampered entry',
      tamper((b) => (b.entries[1_234]!.entry.actorDid = 'did:web:mallory')),
      /entry 1234: the inclusion proof does not lead to the checkpoint's root/,
    ],
    [
      'a wrong proof',
      tamper((b) => (b.entries[10]!.inclusionProof[0] = b.entries[11]!.inclusionProof[0]!)),
      /entry 10: the inclusion proof does not lead/,
    ],
    [
      'a bundle cut short',
      tamper((b) => b.entries.splice(2_000)),
      /bundle holds entries 0\.\.1999 of \d+: some are missing/,
    ],
    [
      'a checkpoint of another size',
      tamper((b) => (b.checkpoint = ledger.checkpoint(2_500))),
      /entry 0: the inclusion proof does not lead/,
    ],
    [
      "another log's checkpoint",
      tamper((b) => (b.checkpoint = other.checkpoint())),
      /checkpoint: origin '.*' is not this key's log/,
    ],
    [
      'an entry of the wrong shape after a wrong proof',
      tamper((b) => {
        b.entries[5]!.inclusionProof = [];
        (b.entries[2_900]!.entry as { kind: string }).kind = 'steal';
      }),
      /bundle: entries\.2900\.entry\.kind: /,
    ],
    [
      'a checkpoint that is not a string, after the entries',
      JSON.stringify({ entries: bundle.entries, checkpoint: 7 }),
      /bundle: checkpoint: /,
    ],
    ['no entries', JSON.stringify({ checkpoint: bundle.checkpoint }), /bundle: entries: /],
    [
      'a cut bundle with a previous checkpoint',
      tamper((b) => b.entries.splice(2_000)),
      /--previous needs a complete bundle/,
      { previous: ledger.checkpoint(10), allowPartial: true },
    ],
    [
      'a previous checkpoint the entries do not extend',
      JSON.stringify(bundle),
      /not consistent with the previous checkpoint: the first 1500 entries were rewritten/,
      {
        previous: signCheckpoint(
          { origin: originFor(publicKey), size: 1_500, root: new Uint8Array(32).fill(7) },
          privateKey,
        ),
      },
    ],
  ];
  it.each(refusals)('refuses %s with the message whole gives', (_, text, reason, options) => {
    const { whole, streamed, fallback } = both(text, options);
    expect(whole.refused).toMatch(reason);
    expect(streamed).toEqual(whole);
    expect(fallback).toEqual(whole);
  });

  it('refuses two holders at once, and says first that entries are missing', () => {
    const doubled = history(privateKey, 3_000, 600).ledger;
    const { whole, streamed } = both(JSON.stringify(doubled.bundle()));
    expect(whole.refused).toMatch(/grants lease_600_b on lock:stream\/0 while lease_600/);
    expect(streamed).toEqual(whole);
    const cut = both(JSON.stringify(doubled.bundle(0, 2_500)));
    expect(cut.whole.refused).toMatch(/some are missing/);
    expect(cut.streamed).toEqual(cut.whole);
  });

  it('refuses a file that is not JSON: whole gives JSON.parse, streamed says where, one line', () => {
    const text = JSON.stringify(bundle);
    for (const broken of [text.slice(0, text.length / 2), `${text}x`, `\ufeff${text}`]) {
      const { whole, streamed, fallback } = both(broken);
      expect(whole.refused).toMatch(/^BundleReadError: /);
      expect(fallback).toEqual(whole);
      expect(streamed.refused).toMatch(/^BundleReadError: .* at byte \d+/);
      expect(streamed.refused).not.toContain('\n');
    }
    // JSON of another shape: read whole when small, as before; refused in one line when not.
    const array = both(`[${text}]`);
    expect(array.whole.refused).toMatch(/bundle: \(root\): /);
    expect(array.fallback).toEqual(array.whole);
    expect(array.streamed.refused).toMatch(/^BundleReadError: expected a JSON object at byte 1;/);
    // A bad byte after a wrong entry: the file is refused as unreadable, as whole.
    const late = both(`${tamper((b) => (b.entries[3]!.inclusionProof = []))}}`);
    expect(late.whole.refused).toMatch(/^BundleReadError/);
    expect(late.streamed.refused).toMatch(/^BundleReadError: data after the bundle at byte/);
  });

  it('keeps no value longer than its limit', () => {
    const long = JSON.stringify({ checkpoint: bundle.checkpoint, entries: ['x'.repeat(2 << 20)] });
    expect(both(long).streamed.refused).toMatch(
      /^BundleReadError: entries\.0 is longer than 1048576 bytes at byte/,
    );
  });

  it('holds the root of the leaves so far in a frontier', () => {
    const tree = new MerkleTree();
    const frontier = new MerkleFrontier();
    for (let i = 0; i < 70; i += 1) {
      expect(equalHashes(frontier.root(), tree.root())).toBe(true);
      const data = Uint8Array.of(i);
      tree.append(data);
      frontier.appendHash(leafHash(data));
    }
  });

  it('`verify FILE` prints what it printed for a whole bundle', async () => {
    const key = join(dir, 'verify.pub');
    writeFileSync(key, publicKey.export({ type: 'spki', format: 'pem' }));
    const good = fileOf(JSON.stringify(bundle, null, 1));
    const ok = await cli(['verify', good, '--public-key', key]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(
      new RegExp(
        `^OK .*: size ${bundle.entries.length}, root .*, ${bundle.entries.length} entries verified\n$`,
      ),
    );
    const bad = fileOf(tamper((b) => b.entries.splice(10)));
    expect(await cli(['verify', bad, '--public-key', key])).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^FAIL: bundle holds entries 0\.\.9 of \d+: some are missing/),
    });
    const cut = fileOf(JSON.stringify(bundle).slice(0, 5_000));
    expect((await cli(['verify', cut, '--public-key', key])).err).toMatch(
      new RegExp(`^FAIL: ${cut} is not a readable JSON bundle \\(.+\\)\n$`),
    );
    expect((await cli(['verify', join(dir, 'none.json'), '--public-key', key])).err).toMatch(
      /is not a readable JSON bundle \(ENOENT: no such file or directory/,
    );
  });
});

async function cli(args: string[], io: Partial<Output> = {}) {
  let out = '';
  let err = '';
  const code = await main(args, {
    out: (line) => (out += `${line}\n`),
    err: (line) => (err += `${line}\n`),
    ...io,
  });
  return { code, out, err };
}

describe('ledger export, streamed', () => {
  let kernel: KernelProcess | undefined;
  afterAll(async () => {
    await kernel?.stop('SIGKILL');
  });

  async function kernelOf(entries: number) {
    const state = mkdtempSync(join(dir, 'kernel-'));
    const keyFile = join(state, 'ledger.key');
    const { privateKey: signing } = generateKeyPairSync('ed25519');
    writeFileSync(keyFile, signing.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const logFile = join(state, 'ledger.jsonl');
    writeFileSync(logFile, history(signing, entries).text);
    return startKernelProcess(['--quiet', '--ledger', logFile, '--signing-key', keyFile]);
  }

  it('writes the bytes the whole bundle had, to FILE (through FILE.tmp) and to stdout', async () => {
    kernel = await kernelOf(1_600);
    const { bundleText, publicKey: pem } = await fetchLedger(kernel.url);
    const out = join(dir, 'export.json');
    const wrote = await cli(['ledger', 'export', '--url', kernel.url, '--out', out]);
    expect(wrote.code, wrote.err).toBe(0);
    expect(wrote.err).toContain('ledger export: 500 of ');
    expect(readFileSync(out, 'utf8')).toBe(bundleText);
    expect(readFileSync(`${out}.pub`, 'utf8')).toBe(pem);
    expect(existsSync(`${out}.tmp`)).toBe(false);
    let streamed = '';
    const piped = await cli(['ledger', 'export', '--url', kernel.url], {
      write: async (text) => void (streamed += text),
    });
    expect(piped.code).toBe(0);
    expect(streamed).toBe(`${bundleText}\n`);
    expect((await cli(['ledger', 'export', '--url', kernel.url])).out).toBe(`${bundleText}\n`);
    await kernel.stop();
    kernel = undefined;
  });

  it('leaves no file under the final name when the kernel dies in the middle', async () => {
    kernel = await kernelOf(3_000);
    const running = kernel;
    const out = join(dir, 'cut.json');
    writeFileSync(out, 'the earlier export');
    let killed = false;
    const result = await cli(['ledger', 'export', '--url', running.url, '--out', out], {
      err: (line) => {
        if (line.startsWith('ledger export:') && !killed) {
          killed = true;
          running.child.kill('SIGKILL');
        }
      },
    });
    expect(killed).toBe(true);
    expect(result.code).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe('the earlier export');
    expect(existsSync(`${out}.tmp`)).toBe(false);
    expect(existsSync(`${out}.pub`)).toBe(false);
    const fresh = join(dir, 'never.json');
    kernel = await kernelOf(3_000);
    const again = kernel;
    killed = false;
    const second = await cli(['ledger', 'export', '--url', again.url, '--out', fresh], {
      err: (line) => {
        if (line.startsWith('ledger export:') && !killed) {
          killed = true;
          again.child.kill('SIGKILL');
        }
      },
    });
    expect(second.code).toBe(1);
    expect(existsSync(fresh)).toBe(false);
    expect(existsSync(`${fresh}.tmp`)).toBe(false);
  });
});
