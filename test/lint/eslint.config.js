// Type-aware lint for every TypeScript workspace. `npm run lint` runs it, and so does
// `npm test` (before the tests, with Prettier's check), so CI holds every change to it.
//
// This file sits in test/lint so that `typescript-eslint` and the TypeScript it loads are
// the ones of this workspace (TypeScript 6: it has the compiler API that type-aware rules
// need, which TypeScript 7 does not offer yet). The root eslint.config.js re-exports it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/build/**',
      '**/node_modules/**',
      'bench-data/**',
      'data/**',
      '.stryker-tmp/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    rules: {
      // The two the issue asks for: a promise nobody awaits loses its error, and an async
      // function where a void callback is expected (emitter, setInterval) does the same.
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // `_name` marks a parameter an interface requires but this implementation ignores.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // A plugin sees Heliograph through the SDK's public entry points only (docs/architecture.md,
    // "The packages"): not the core, and not another plugin. Relative paths into another
    // plugin's folder are caught by the import check (.dependency-cruiser.cjs, plugin-outside).
    files: ['plugins/*/src/**/*.ts', 'plugins/*/test/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@heliograph/core', '@heliograph/core/*', '@heliograph/plugin-*', '@heliograph/plugin-*/*'],
              message:
                'A plugin imports only @heliograph/plugins-sdk (and its sub-entries), never the core or another plugin.',
            },
          ],
        },
      ],
    },
  },
  {
    // Source files stay readable in one sitting: a file holds one concern (~400 lines), a
    // function one step (~80). Blank lines and comments do not count. Tests, benchmarks and
    // the web app's tests are exempt. A file or function over the limit says why in an
    // eslint-disable comment naming the rule.
    files: ['core/src/**/*.ts', 'plugins-sdk/src/**/*.ts', 'plugins/*/src/**/*.ts', 'web/src/**/*.ts'],
    ignores: ['**/test/**'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
);
