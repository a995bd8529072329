import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { configFileSchema } from '../src/app/config.js';
import { APP_HELP } from '../src/cli/app-help.js';

/** `lease-gate app --help` and docs/protection-rule.md name every setting the config file accepts. */

const docs = readFileSync('docs/protection-rule.md', 'utf8');

/** The object inside optional/default wrappers and arrays, if any. */
function objectOf(schema: z.ZodMiniType): z.ZodMiniObject | undefined {
  let inner: z.ZodMiniType = schema;
  for (let i = 0; i < 5; i += 1) {
    if (inner instanceof z.ZodMiniObject) return inner;
    if (inner instanceof z.ZodMiniArray) inner = inner._zod.def.element as z.ZodMiniType;
    else if (inner instanceof z.ZodMiniDefault || inner instanceof z.ZodMiniOptional)
      inner = inner._zod.def.innerType as z.ZodMiniType;
    else return undefined;
  }
  return undefined;
}

function settings(): { top: string[]; nested: string[] } {
  // Leaf settings at the top; the fields of objects (plane, listen) and of each rule as `key.field`.
  const top: string[] = [];
  const nested: string[] = [];
  for (const key of Object.keys(configFileSchema.shape)) {
    const object = objectOf(configFileSchema.shape[key as keyof typeof configFileSchema.shape]);
    if (!object) top.push(key);
    else for (const inner of Object.keys(object.shape)) nested.push(`${key}.${inner}`);
  }
  return { top, nested };
}

describe('the app settings', () => {
  const { top, nested } = settings();

  it('finds the nested settings of the schema', () => {
    expect(nested).toEqual(expect.arrayContaining(['plane.url', 'listen.port', 'rules.job']));
    expect(top).toEqual(expect.arrayContaining(['appId', 'takeUpGrace', 'deploymentStatus']));
  });

  it('are each described by lease-gate app --help', () => {
    const lines = APP_HELP.split('\n').map((line) => line.trim());
    const missing = [...top, ...nested.filter((n) => !n.startsWith('rules.'))].filter(
      (key) => !lines.some((line) => line.startsWith(`${key} `)),
    );
    const rules = lines.find((line) => line.startsWith('rules '))!;
    for (const key of nested.filter((n) => n.startsWith('rules.')))
      if (!rules.includes(key.slice('rules.'.length))) missing.push(key);
    expect(missing).toEqual([]);
  });

  it('are each in the settings table of docs/protection-rule.md', () => {
    const table = docs.split('\n').filter((line) => line.startsWith('| `'));
    const cell = (line: string) => line.split('|')[1] ?? '';
    const missing = [...top, ...nested.filter((n) => !n.startsWith('rules.'))].filter(
      (key) => !table.some((line) => cell(line).includes(`\`${key}\``)),
    );
    const rules = table.find((line) => cell(line).includes('`rules[]`'))!;
    for (const key of nested.filter((n) => n.startsWith('rules.')))
      if (!rules.includes(`\`${key.slice('rules.'.length)}\``)) missing.push(key);
    expect(missing).toEqual([]);
  });
});
