import type { ParseArgsConfig, parseArgs } from 'node:util';

/**
 * One row per flag: what node:util's parseArgs needs (type, multiple, short, default) and
 * what the help says of it (its value's placeholder, its paragraph). A command's parser
 * options and its help are both derived from its table, so the two cannot drift; adding a
 * flag is adding a row. test/cli-flag-table.test.ts holds every command to it.
 */
export interface Flag {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  readonly default?: string | boolean | readonly string[];
  /** The value as the help shows it: a placeholder (FILE, URL) or the default (127.0.0.1). */
  readonly value?: string;
  /** Shown without brackets: the command, or the flag whose paragraph names it, needs it. */
  readonly required?: boolean;
  /** Left out of the synopsis line: its own paragraph, or the one it is named in, says it. */
  readonly synopsis?: false;
  /** An alternative to the row before it, in one group: `(--agent DID | --run …)`. */
  readonly or?: boolean;
  /** The parenthesis after the flag in its paragraph's first line ("repeatable", …). */
  readonly note?: string;
  /** Its paragraph: what it does, after "--flag VALUE:" (later lines start with two spaces). */
  readonly help?: string;
  /** Flags its paragraph's first line names after it: `[--schema public]`. */
  readonly with?: readonly string[];
  /** Not in the command's help, and why (an old name; the action's own). */
  readonly hidden?: string;
  /** Said once in the overview's "Common:" part, not in each command's synopsis. */
  readonly common?: boolean;
}

export type FlagTable = Readonly<Record<string, Flag>>;

/** A command's help: its words, its table, and the prose that is not about one flag. */
export interface CommandSpec {
  /** `lease-gate kernel`, `lease-gate ledger export`. */
  readonly usage: string;
  readonly flags: FlagTable;
  /** What comes between the words and the flags (`FILE`). */
  readonly before?: string;
  /** What comes after the flags (`-- <command> [args...]`). */
  readonly after?: string;
  /** The lines after the synopsis, each starting with two spaces. */
  readonly about?: string;
  /** Lines after the flags' paragraphs. */
  readonly end?: string;
}

type ParseOptions = NonNullable<ParseArgsConfig['options']>;

/**
 * The table as node:util's options: only the parser's own fields, so the help's cannot
 * reach it. Typed as the table, whose literal rows give parse() its values' types.
 */
export function optionsOf<T extends FlagTable>(table: T): T & ParseOptions {
  const options: ParseOptions = {};
  for (const [name, flag] of Object.entries(table)) {
    options[name] = {
      type: flag.type,
      ...(flag.multiple ? { multiple: true } : {}),
      ...(flag.short ? { short: flag.short } : {}),
      ...(flag.default !== undefined ? { default: flag.default } : {}),
    } as ParseOptions[string];
  }
  return options as T & ParseOptions;
}

/** What parse() gives for a table: each flag's value, typed by its row. */
export type ValuesOf<T extends FlagTable> = ReturnType<
  typeof parseArgs<{ options: T & ParseOptions; strict: true; allowPositionals: false }>
>['values'];

/** `--host 127.0.0.1`, `--quiet`: the flag with its value as the help shows it. */
export function formOf(name: string, flag: Flag): string {
  return flag.type === 'string' ? `--${name} ${flag.value ?? 'VALUE'}` : `--${name}`;
}

const bracket = (text: string, flag: Flag) => (flag.required ? text : `[${text}]`);

/** The synopsis line: the words, then each visible flag in the table's order. */
function synopsisOf(spec: CommandSpec): string {
  const parts = [spec.usage, ...(spec.before ? [spec.before] : [])];
  const rows = Object.entries(spec.flags).filter(
    ([, flag]) => !flag.hidden && !flag.common && flag.synopsis !== false,
  );
  for (let i = 0; i < rows.length; i += 1) {
    const [name, flag] = rows[i]!;
    const group = [formOf(name, flag)];
    while (rows[i + 1]?.[1].or) group.push(formOf(...rows[(i += 1)]!));
    const text = group.join(' | ');
    // A required choice is in parentheses, as usage lines write one.
    parts.push(group.length > 1 && flag.required ? `(${text})` : bracket(text, flag));
  }
  if (spec.after) parts.push(spec.after);
  return parts.join(' ');
}

/** A paragraph's first words: the flag, its note, and the flags that go with it. */
function leadOf(name: string, flag: Flag, table: FlagTable): string {
  const words = [formOf(name, flag) + (flag.note ? ` (${flag.note})` : '')];
  for (const other of flag.with ?? []) {
    const row = table[other];
    if (row) words.push(bracket(formOf(other, row), row));
  }
  return words.join(' ');
}

/** The command's help: synopsis, prose, then each flag's paragraph in the table's order. */
export function helpOf(spec: CommandSpec): string {
  const lines = [synopsisOf(spec)];
  if (spec.about) lines.push(spec.about);
  for (const [name, flag] of Object.entries(spec.flags)) {
    // A paragraph may start on the line after a long lead.
    const gap = flag.help?.startsWith('\n') ? '' : ' ';
    if (flag.help && !flag.hidden)
      lines.push(`  ${leadOf(name, flag, spec.flags)}:${gap}${flag.help}`);
  }
  if (spec.end) lines.push(spec.end);
  return lines.join('\n');
}

/** The flags a help text names (`--host`), each once; `--` alone is not one. */
export function flagsNamedIn(text: string): string[] {
  return [...new Set(text.match(/--[a-z][a-z0-9-]*/g) ?? [])].map((flag) => flag.slice(2));
}
