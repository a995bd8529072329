import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral, integerLiteral, textLiteral } from '../src/kernel/postgres/literals.js';
import { POSTGRES_URL, describePostgres } from './support/postgres.js';

describePostgres('SQL literals of the simple-query batches', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
  });
  afterAll(() => client.end());

  const nasty = [
    "it's",
    'back\\slash',
    "'; DROP TABLE x; --",
    "\\'",
    "E'\\x41'",
    'line\nbreak\ttab',
    'ünïcødé 🚀',
    '{"json": "with \\"quotes\\" and \\\\"}',
    '',
  ];

  it('reads back every string exactly as sent, whatever standard_conforming_strings says', async () => {
    for (const setting of ['on', 'off']) {
      await client.query(`SET standard_conforming_strings = ${setting}`);
      for (const value of nasty) {
        const { rows } = await client.query<{ v: string }>(`SELECT ${textLiteral(value)} AS v`);
        expect(rows[0]!.v).toBe(value);
      }
      const { rows } = await client.query<{ v: string[] }>(
        `SELECT ${arrayLiteral(nasty, 'text')} AS v`,
      );
      expect(rows[0]!.v).toEqual(nasty);
    }
    await client.query('RESET standard_conforming_strings');
  });

  it('writes numbers, NULL and empty arrays as their types', async () => {
    const { rows } = await client.query<{ a: string[]; b: number[]; n: null; e: string[] }>(
      `SELECT ${arrayLiteral([1, null, 2 ** 40], 'bigint')} AS a, ${arrayLiteral([3], 'int')} AS b,
              ${integerLiteral(null)}::bigint AS n, ${arrayLiteral([], 'text')} AS e`,
    );
    expect(rows[0]).toEqual({ a: ['1', null, String(2 ** 40)], b: [3], n: null, e: [] });
  });
});

describe('SQL literals, refused before anything is sent', () => {
  it('refuses NUL (it would end the query text) and numbers that are not whole', () => {
    expect(() => textLiteral('a\0b')).toThrow(/NUL/);
    expect(() => integerLiteral(1.5)).toThrow(/whole number/);
    expect(() => integerLiteral(Number.NaN)).toThrow(/whole number/);
    expect(() => arrayLiteral([2 ** 60], 'bigint')).toThrow(/whole number/);
  });
});
