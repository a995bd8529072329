import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';

/** Replaces a file so that a reader, or a crash, sees the old text or the new, never half. */
export function writeFileAtomic(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}
