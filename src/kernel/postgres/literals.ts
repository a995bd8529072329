import { InternalError } from '../../errors.js';
/**
 * SQL literals for the statements sent as one simple query (several statements,
 * a transaction's whole read or its write and COMMIT, in one round trip: the
 * extended protocol takes one round trip per statement). Every value is
 * escaped here and nowhere else; NUL, which would end a query's text, is refused.
 */

/** A text literal in the escape-string form, whatever `standard_conforming_strings` says. */
export function textLiteral(value: string): string {
  if (value.includes('\0')) throw new InternalError('a value sent to PostgreSQL contains NUL');
  return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** A whole number as a literal (NULL for null); anything else is refused. */
export function integerLiteral(value: number | null): string {
  if (value === null) return 'NULL';
  if (!Number.isSafeInteger(value))
    throw new InternalError(`not a whole number for PostgreSQL: ${value}`);
  return String(value);
}

/** An array literal of `type` (text, jsonb, bigint, int). */
export function arrayLiteral(
  values: ReadonlyArray<string | number | null>,
  type: 'text' | 'jsonb' | 'bigint' | 'int',
): string {
  const items = values.map((v) => (typeof v === 'string' ? textLiteral(v) : integerLiteral(v)));
  return `ARRAY[${items.join(',')}]::${type}[]`;
}
