import { readFileSync } from 'node:fs';
import type * as z from 'zod/mini';
import { causeText, LeaseGateError, type CauseOptions } from '../../errors.js';

/** Policy and keys files are small; anything bigger is a mistake. */
const MAX_FILE_BYTES = 1024 * 1024;

/** A policy or keys file that cannot be used: the message names the file, the line or the entry. */
export class AuthFileError extends LeaseGateError<'auth_file'> {
  override name = 'AuthFileError';
  constructor(message: string, options: CauseOptions = {}) {
    super(message, { ...options, code: 'auth_file' });
  }
}

/** Reads a JSON file and checks it against `schema`; errors name the line (syntax) or the entry (shape). */
export function readJsonFile<T>(
  file: string,
  schema: z.ZodMiniType<T>,
  describe: (path: PropertyKey[], raw: unknown) => string,
): T {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AuthFileError(`Cannot read ${file}: ${causeText(error)}`, { cause: error });
  }
  if (text.length > MAX_FILE_BYTES)
    throw new AuthFileError(`${file} is over ${MAX_FILE_BYTES} bytes.`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new AuthFileError(`${file}: ${syntaxError(text, causeText(error))}`, { cause: error });
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path ?? [];
  throw new AuthFileError(`${file}: ${describe(path, raw)}: ${issue?.message ?? 'invalid'}.`);
}

/** "line 3, column 7: …" from JSON.parse's "at position N" (Node 20 and 24 both say it). */
function syntaxError(text: string, message: string): string {
  const at = /position (\d+)/.exec(message);
  const first = message.split('\n')[0] ?? message;
  if (!at) return `not valid JSON (${first})`;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `line ${line}, column ${column}: not valid JSON (${first.replace(/ in JSON at position \d+.*$/, '')})`;
}

/** `rules[1] ("production") → claims.ref` for a zod path into a list of named entries. */
export function entryPath(list: string, entries: unknown, path: PropertyKey[]): string {
  const [top, index, ...rest] = path;
  if (top !== list || typeof index !== 'number') return path.length ? path.join('.') : 'the file';
  const entry = Array.isArray(entries)
    ? (entries[index] as { name?: unknown } | undefined)
    : undefined;
  const name = typeof entry?.name === 'string' ? ` ("${entry.name.slice(0, 60)}")` : '';
  return `${list}[${index}]${name}${rest.length ? ` ${rest.join('.')}` : ''}`;
}
