import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `throw new X` in src/ where X is not a LeaseGateError, on purpose, as
 * `file: X`, each with why. Anything else thrown by name must extend the base
 * (docs/development.md, "Errors"). Browser code (src/console/page) is not
 * scanned: its errors are shown on the page, never printed by a face of ours.
 */
const ALLOWED: Record<string, string> = {
  'src/action/context.ts: Error': 'a fake job summary (for tests) failing as the file system does',
  'src/lease/oidc-token.ts: Error':
    'thrown to be caught close by and reworded: its message becomes the inner words of one of ours (TransientError: could not get an OIDC token)',
  'src/kernel/auth/oidc-keys.ts: Error':
    'thrown to be caught close by and reworded: its message becomes the inner words of one of ours (AuthRefusal: the issuer cannot be used)',
  'src/kernel/store/file-store.ts: Error':
    'thrown to be caught close by and reworded: its message becomes the inner words of one of ours (StoreError: cannot repair, cannot write)',
  'src/kernel/store/log-view.ts: Error':
    'thrown to be caught close by and reworded: its message becomes the inner words of one of ours (a snapshot that is not used)',
  'src/kernel/postgres/ledger-tree.ts: Error':
    'thrown to be caught close by and reworded: its message becomes the inner words of one of ours (a snapshot that is not used, logged)',
  'src/kernel/postgres/commit-context.ts: Error':
    'thrown to be caught close by and reworded: its message becomes the inner words of one of ours (StoreUnavailableError: cannot write)',
  'src/fs/write-all.ts: Error':
    'a write that took no bytes: the file system kind of failure, which its callers reword (StoreError: cannot write) or report as the file system would',
  'src/ledger/merkle.ts: RangeError':
    "an index or size out of range: a caller's bug, named as the standard library names it",
  'src/ledger/file-lines.ts: RangeError':
    "an index or size out of range: a caller's bug, named as the standard library names it",
  'src/ledger/fetched-lines.ts: RangeError':
    "an index or size out of range: a caller's bug, named as the standard library names it",
  'src/metrics/bounded.ts: RangeError':
    "a label cap out of range: a caller's bug, named as the standard library names it",
};

/** Every `throw new X(...)` or `Promise.reject(new X(...))` in src/ whose X does not extend LeaseGateError. */
function strayThrows(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error('cannot read tsconfig.json');
  const files = config.fileNames.filter((f) => relative(ROOT, f).startsWith('src/'));
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  // A generic class (PlaneError<C>) is met as a reference to it: its target has the bases.
  const extendsBase = (type: ts.Type): boolean => {
    const target = (type as ts.TypeReference).target ?? type;
    if (target.getSymbol()?.getName() === 'LeaseGateError') return true;
    return (target.isClassOrInterface() ? checker.getBaseTypes(target) : []).some(extendsBase);
  };
  const stray: string[] = [];
  for (const source of program.getSourceFiles()) {
    const file = relative(ROOT, source.fileName);
    if (!file.startsWith('src/') || file.startsWith('src/console/page/')) continue;
    const visit = (node: ts.Node): void => {
      // `Promise.reject(new X())` throws as surely as `throw new X()`, only later.
      const thrown =
        ts.isThrowStatement(node) && ts.isNewExpression(node.expression)
          ? node.expression
          : ts.isCallExpression(node) &&
              node.expression.getText(source) === 'Promise.reject' &&
              node.arguments[0] &&
              ts.isNewExpression(node.arguments[0])
            ? node.arguments[0]
            : undefined;
      if (thrown) {
        if (!extendsBase(checker.getTypeAtLocation(thrown))) {
          const name = thrown.expression.getText(source);
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          stray.push(`${file}:${line + 1}: ${name}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return stray;
}

describe('the error base', () => {
  it('is what src/ throws by name, but for the allowed few', { timeout: 60_000 }, () => {
    const stray = strayThrows();
    const unexplained = stray.filter((s) => !(s.replace(/:\d+:/, ':') in ALLOWED));
    expect(unexplained).toEqual([]);
    // An allowance no throw uses any more goes, so the list stays the truth.
    const used = new Set(stray.map((s) => s.replace(/:\d+:/, ':')));
    expect(Object.keys(ALLOWED).filter((k) => !used.has(k))).toEqual([]);
  });
});
