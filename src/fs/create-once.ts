import { closeSync, fsyncSync, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `path` with `text` unless it exists: true if this call made it, false if it was
 * there already. The text is written and synced under a name of its own, then linked into
 * place: link(2) fails where the name exists, as O_EXCL does, so of two processes that race
 * exactly one creates it, and neither reader ever sees it half written. The directory is
 * synced after, so a crash cannot take back a file that was reported made.
 */
export function createFileOnce(path: string, text: string, mode = 0o600): boolean {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(temp, 'wx', mode);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temp);
  }
  syncDirectory(dirname(path));
  return true;
}

/** Makes the directory's entries (a new name) durable. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
