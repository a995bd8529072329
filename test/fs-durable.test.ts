/**
 * The one durable write (src/fs/durable.ts) and the one "write until every byte is taken"
 * (src/fs/write-all.ts), on real files in a temporary directory: short writes go on, a
 * write that takes nothing fails, a failure leaves no temporary file and the old file whole,
 * and a directory sync that fails fails the write unless the platform cannot sync one. The
 * atomic write (not durable) replaces as whole and syncs no directory.
 */
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileOnce } from '../src/fs/create-once.js';
import {
  syncDirectory,
  syncDirectorySync,
  writeFileAtomicSync,
  writeFileDurable,
  writeFileDurableSync,
} from '../src/fs/durable.js';
import {
  fdWriter,
  handleWriter,
  writeAll,
  writeAllSync,
  type WriteSome,
  type WriteSomeSync,
} from '../src/fs/write-all.js';
import { inShutDirectory } from './support/shut-directory.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'lease-gate-durable-'));
const BYTES = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz'.repeat(40), 'utf8');

/** A real descriptor's writes, each taking at most `most` bytes (a disk filling up). */
function capped(write: WriteSome, most: number, calls: number[]): WriteSome {
  return (bytes, offset, length, position) => {
    calls.push(length);
    return write(bytes, offset, Math.min(length, most), position);
  };
}

describe('writeAll', () => {
  it('goes on after short writes until every byte is in the file, at the position given', async () => {
    const file = join(fresh(), 'short.bin');
    writeFileSync(file, 'HEAD:');
    const handle = await open(file, 'r+');
    const calls: number[] = [];
    try {
      await writeAll(capped(handleWriter(handle), 7, calls), BYTES, 5);
    } finally {
      await handle.close();
    }
    expect(readFileSync(file)).toEqual(Buffer.concat([Buffer.from('HEAD:'), BYTES]));
    expect(calls.length).toBe(Math.ceil(BYTES.length / 7));
    // Each call asks for what is left: the short write is the file system's, not ours.
    expect(calls[1]).toBe(BYTES.length - 7);
  });

  it('writes where the descriptor stands when no position is given (a pipe, an append)', () => {
    const file = join(fresh(), 'sequential.bin');
    const fd = openSync(file, 'w');
    const calls: number[] = [];
    const write: WriteSomeSync = (bytes, offset, length, position) => {
      calls.push(length);
      return fdWriter(fd)(bytes, offset, Math.min(length, 100), position);
    };
    try {
      writeAllSync(write, BYTES);
      writeAllSync(write, Buffer.from('tail'));
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, 'utf8')).toBe(`${BYTES.toString('utf8')}tail`);
    expect(calls.length).toBe(Math.ceil(BYTES.length / 100) + 1);
  });

  it('fails, saying how far it got, when a write takes no bytes', async () => {
    const file = join(fresh(), 'stuck.bin');
    const handle = await open(file, 'w');
    let calls = 0;
    const write: WriteSome = async (bytes, offset, _length, position) => {
      calls += 1;
      return calls === 1 ? handleWriter(handle)(bytes, offset, 10, position) : 0;
    };
    try {
      await expect(writeAll(write, BYTES, 0)).rejects.toThrow(
        `a write took 10 of ${BYTES.length} bytes`,
      );
    } finally {
      await handle.close();
    }
    expect(calls).toBe(2);
    expect(() => writeAllSync(() => 0, BYTES, 0)).toThrow(`a write took 0 of ${BYTES.length}`);
  });
});

describe('writeFileDurable', () => {
  it('replaces a file whole, private by default, and leaves only the file', async () => {
    const dir = fresh();
    const path = join(dir, 'state.json');
    writeFileSync(path, 'the old text');
    await writeFileDurable(path, 'the new text\n');
    expect(readFileSync(path, 'utf8')).toBe('the new text\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('writes content given a piece at a time, in order, through the temporary name given', async () => {
    const dir = fresh();
    const path = join(dir, 'pieces.json');
    const pieces = Array.from({ length: 500 }, (_, i) => `${i},`);
    let seenTemp = false;
    await writeFileDurable(
      path,
      async (write) => {
        for (const piece of pieces) await write(piece);
        await write(Buffer.from('end'));
        seenTemp = readdirSync(dir).includes('pieces.json.tmp');
      },
      { temp: `${path}.tmp`, mode: 0o644 },
    );
    expect(seenTemp).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(`${pieces.join('')}end`);
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir)).toEqual(['pieces.json']);
  });

  it('leaves the old file and no temporary file when the content fails part-way', async () => {
    const dir = fresh();
    const path = join(dir, 'kept.json');
    writeFileSync(path, 'the old text');
    const failing = writeFileDurable(path, async (write) => {
      await write('half of the ');
      throw new Error('the source went away');
    });
    await expect(failing).rejects.toThrow('the source went away');
    expect(readFileSync(path, 'utf8')).toBe('the old text');
    expect(readdirSync(dir)).toEqual(['kept.json']);
  });

  it('leaves no temporary file when the rename fails', async () => {
    const dir = fresh();
    const path = join(dir, 'a-directory');
    mkdirSync(join(path, 'inside'), { recursive: true });
    await expect(writeFileDurable(path, 'text')).rejects.toMatchObject({ code: 'EISDIR' });
    expect(() => writeFileDurableSync(path, 'text')).toThrow(/EISDIR/);
    expect(readdirSync(dir)).toEqual(['a-directory']);
  });

  it('has a synchronous twin that writes the same way', () => {
    const dir = fresh();
    const path = join(dir, 'cursor.json');
    writeFileDurableSync(path, 'one');
    writeFileDurableSync(path, Buffer.from('two'));
    expect(readFileSync(path, 'utf8')).toBe('two');
    expect(readdirSync(dir)).toEqual(['cursor.json']);
  });
});

describe('the directory sync', () => {
  it('fails when the directory cannot be synced (the write is not durable)', async () => {
    const missing = join(fresh(), 'gone');
    await expect(syncDirectory(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => syncDirectorySync(missing)).toThrow(/ENOENT/);
  });

  it('is skipped where the platform cannot sync a directory (EINVAL from /proc)', async () => {
    // procfs refuses fsync with EINVAL, as some network and FUSE file systems do.
    await expect(syncDirectory('/proc/self')).resolves.toBeUndefined();
    expect(() => syncDirectorySync('/proc/self')).not.toThrow();
  });

  it('fails a durable write whose directory cannot be opened to sync, after the rename', () => {
    const durable = resolve('src/fs/durable.ts');
    const { stdout, file } = inShutDirectory(
      `import { writeFileDurable, writeFileDurableSync } from ${JSON.stringify(durable)};`,
      `let sync = 'written';
      try { writeFileDurableSync(path, 'x'); } catch (error) { sync = error.code; }
      let async = 'written';
      try { await writeFileDurable(path, 'y'); } catch (error) { async = error.code; }
      console.log(JSON.stringify({ sync, async }));`,
    );
    expect(JSON.parse(stdout)).toEqual({ sync: 'EACCES', async: 'EACCES' });
    // The rename happened (the file is there) but was not reported durable.
    expect(readFileSync(file, 'utf8')).toBe('y');
  });
});

describe('writeFileAtomicSync (whole, not durable)', () => {
  it('replaces the file whole, private, and leaves no temporary file, or none on a failure', () => {
    const dir = fresh();
    const path = join(dir, 'status.json');
    writeFileAtomicSync(path, 'one');
    writeFileAtomicSync(path, Buffer.from('two'));
    expect(readFileSync(path, 'utf8')).toBe('two');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    mkdirSync(join(dir, 'a-directory', 'inside'), { recursive: true });
    expect(() => writeFileAtomicSync(join(dir, 'a-directory'), 'x')).toThrow(/EISDIR/);
    expect(readdirSync(dir).sort()).toEqual(['a-directory', 'status.json']);
  });

  it('syncs no directory: it writes where a durable write fails at the directory sync', () => {
    const durable = resolve('src/fs/durable.ts');
    const { stdout, file } = inShutDirectory(
      `import { writeFileAtomicSync, writeFileDurableSync } from ${JSON.stringify(durable)};`,
      `let durable = 'written';
      try { writeFileDurableSync(path, 'x'); } catch (error) { durable = error.code; }
      writeFileAtomicSync(path, 'y');
      console.log(JSON.stringify({ durable }));`,
    );
    expect(JSON.parse(stdout)).toEqual({ durable: 'EACCES' });
    expect(readFileSync(file, 'utf8')).toBe('y');
  });
});

describe('createFileOnce', () => {
  it('makes the file once, whole, and leaves no temporary file either way', () => {
    const dir = fresh();
    const path = join(dir, 'signing.key');
    expect(createFileOnce(path, 'first')).toBe(true);
    expect(createFileOnce(path, 'second')).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('first');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['signing.key']);
  });
});
