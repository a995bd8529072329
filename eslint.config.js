import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Layers (docs/architecture.md): each folder may import only the layers below it.
 *   http ← plane ← gate ← lease ← action | cli ; kernel, ledger beside them.
 */
const ACTIONS = { group: ['@actions/*'], message: '@actions/* belongs in src/action/ only.' };
const layer = (files, forbidden) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...(files[0].startsWith('src/action') ? [] : [ACTIONS]),
          ...forbidden.map((name) => ({
            group: [`**/${name}/*`, `../${name}/*`, `./${name}/*`],
            message: `${files[0]} may not import src/${name}/ (see docs/architecture.md).`,
          })),
        ],
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { patterns: [ACTIONS] }],
    },
  },
  layer(['src/http/**/*.ts'], ['plane', 'gate', 'lease', 'action', 'cli', 'kernel', 'ledger']),
  layer(['src/plane/**/*.ts'], ['gate', 'lease', 'action', 'cli', 'kernel', 'ledger']),
  layer(['src/gate/**/*.ts'], ['lease', 'action', 'cli', 'kernel', 'ledger']),
  layer(['src/lease/**/*.ts'], ['action', 'cli', 'kernel', 'ledger']),
  layer(['src/action/**/*.ts'], ['cli', 'kernel']),
  layer(['src/cli/**/*.ts'], ['action']),
  // The protection-rule app: a face of its own over the session core, never the runner's.
  layer(['src/app/**/*.ts'], ['action', 'cli', 'kernel', 'ledger', 'console']),
);
