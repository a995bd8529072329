import { readFileSync } from 'node:fs';
import { writeFileDurable } from '../../fs/durable.js';
import * as z from 'zod/mini';
import type { Ledger, SignedCheckpoint } from '../../ledger/ledger.js';
import { causeText } from '../../errors.js';
import { StartRefusedError, StoreUnavailableError } from './store-error.js';

/**
 * The last checkpoint a file kernel signed over its log, kept beside it
 * (`LOG.signed.json`): its size and root. A checkpoint is a promise that the
 * log's first `size` entries are these and never others; a log rewritten
 * between two runs would otherwise be signed again under a new root, and only
 * someone holding the old checkpoint would ever know. Written (synced, renamed
 * into place) before a checkpoint of a larger size is handed out; checked at
 * start, before the kernel serves or signs anything.
 */
export const signedRecordPath = (logPath: string) => `${logPath}.signed.json`;

const recordSchema = z.object({
  size: z.number().check(z.int(), z.positive()),
  root: z.string().check(z.regex(/^[A-Za-z0-9+/]{43}=$/)),
});

/** The record beside `logPath`, or undefined when there is none (no checkpoint signed yet). */
export function readSignedRecord(logPath: string): SignedCheckpoint | undefined {
  const path = signedRecordPath(logPath);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StartRefusedError(
      `Cannot read ${path}, the last checkpoint signed over ${logPath}: ${causeText(error)}`,
    );
  }
  let parsed;
  try {
    parsed = recordSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    throw new StartRefusedError(
      `${path} is damaged: it should hold the last checkpoint signed over ${logPath} as {"size":N,"root":"…"}. ${RECOVERY}`,
    );
  }
  return parsed.data;
}

const RECOVERY =
  'Put back the log that was signed (from a backup), or, to start a new history on purpose, move the log and its .signed.json and .snapshot.json aside (checkpoints handed out before then no longer verify against the new log).';

/**
 * Refuses (StartRefusedError) a log whose tree at the recorded size does not
 * have the recorded root, or that is shorter: it is not the history signed.
 */
export function checkSignedHistory(
  ledger: Ledger,
  record: SignedCheckpoint,
  logPath: string,
): void {
  if (ledger.size < record.size) {
    throw new StartRefusedError(
      `Refusing to start: ${logPath} holds ${entries(ledger.size)}, but a checkpoint of ${entries(record.size)} was signed over it (${signedRecordPath(logPath)}): entries were removed. ${RECOVERY}`,
    );
  }
  const root = ledger.rootAt(record.size);
  if (root !== record.root) {
    throw new StartRefusedError(
      `Refusing to start: the first ${entries(record.size)} of ${logPath} are not what was signed (their root is ${root}, the checkpoint signed over them had ${record.root}, ${signedRecordPath(logPath)}): the log was rewritten. ${RECOVERY}`,
    );
  }
}

const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;

/** Makes `record` the one kept beside `logPath`: a new file, synced, renamed over the old one. */
export async function writeSignedRecord(logPath: string, record: SignedCheckpoint): Promise<void> {
  const path = signedRecordPath(logPath);
  try {
    const text = `${JSON.stringify({ size: record.size, root: record.root })}\n`;
    await writeFileDurable(path, text, { temp: `${path}.tmp` });
  } catch (error) {
    // No checkpoint goes out that a restart could not hold the log to.
    throw new StoreUnavailableError(
      `cannot record the signed checkpoint in ${path}: ${causeText(error)}`,
    );
  }
}
