// Lint: typescript-eslint's recommended rules, with limits on the size of functions in the spirit of Pepr's
// (parameters, complexity, length). A function over a limit carries a one-line reason beside it:
//   // eslint-disable-next-line complexity -- <why this one is allowed>
// lib/ is the framework: it may not import an operator (hooks/) or the composition root (main/); test/layering
// checks the rest of the layering (no operator imports another, no import cycle). An operator (hooks/) uses the
// framework only through its two front doors: lib/index.ts, and lib/testing.ts for what its tests may use; so do the
// example operators in test/toy/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'reports/**', '.stryker-tmp/**', 'manifests/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { ecmaVersion: 2022, sourceType: 'module' } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Wire data is read through narrow casts, and tests build loose fixtures: `any` is allowed, not encouraged.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    // The hand-written peer and ceiling of the benchmark: plain Node.js scripts.
    files: ['bench/**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        Buffer: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        URL: 'readonly',
      },
    },
  },
  {
    files: ['lib/**/*.ts', 'hooks/**/*.ts', 'main/**/*.ts'],
    rules: {
      'max-params': ['error', 5],
      complexity: ['error', 20],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-depth': ['error', 4],
      '@typescript-eslint/explicit-module-boundary-types': 'off',
    },
  },
  {
    // JSON text is parsed by lib/parse-json.ts parseJson only: V8's JSON.parse in some Node releases reads a key by
    // what an earlier text held (docs/operating.md, "JSON parsing and the Node release").
    files: ['lib/**/*.ts', 'hooks/**/*.ts', 'main/**/*.ts'],
    ignores: ['lib/parse-json.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'JSON', property: 'parse', message: 'parse JSON text with parseJson (lib/parse-json.ts).' },
      ],
    },
  },
  {
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../hooks/*', '../../hooks/*', '../main/*'],
              message: 'lib/ is the framework: it imports no operator (hooks/) and not the composition root (main/).',
            },
          ],
        },
      ],
    },
  },
  {
    // The example operators of docs/framework.md (test/toy/) are held to the same front doors as hooks/.
    files: ['hooks/**/*.ts', 'test/toy/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+lib/(?!(index|testing)\\.js$)',
              message: 'hooks/ use the framework through its front doors: lib/index.js (and lib/testing.js).',
            },
          ],
        },
      ],
    },
  },
);
