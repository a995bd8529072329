import { linkSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { syncDirectorySync, writeTempSync } from './durable.js';

/**
 * Creates `path` with `text` unless it exists: true if this call made it, false if it was
 * there already. The text is written and synced under a name of its own, then linked into
 * place: link(2) fails where the name exists, as O_EXCL does, so of two processes that race
 * exactly one creates it, and neither reader ever sees it half written. The directory is
 * synced after (durable.ts's policy), so a crash cannot take back a file that was reported made.
 */
export function createFileOnce(path: string, text: string, mode = 0o600): boolean {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  // 'wx': a name of its own, never written through; a temporary file it could not fill is removed.
  writeTempSync(temp, text, 'wx', mode);
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temp);
  }
  syncDirectorySync(dirname(path));
  return true;
}
