// The lint rules the codebase meets (`npm run lint`, part of `npm test`); docs/development.md#lint says why each one.
// Existing non-null assertions are listed in eslint-suppressions.json, so only a new one fails.
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';
import kubeLedger from './eslint-rules/index.js';

/** Functions longer than this many lines (blank and comment lines not counted) are split into named steps. */
const MAX_FUNCTION_LINES = 40;
/** Cyclomatic complexity as ESLint counts it: every `if`, loop, `case`, `&&`/`||`/`??`, `?.` and default value. */
const MAX_COMPLEXITY = 15;

export default defineConfig(
  globalIgnores(['dist/', 'bench-results/', '.tmp/', 'test/bench/go-extender/']),
  {
    name: 'kube-ledger/parser',
    files: ['**/*.ts', '**/*.js', '**/*.cjs'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // The JavaScript files no tsconfig includes (a few: each one costs a program of its own).
        projectService: {
          allowDefaultProject: ['bin/*.js', 'eslint-rules/*.js', 'eslint.config.js', 'test/support/*.cjs', 'test/chaos/support/*.cjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error', reportUnusedInlineConfigs: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin, 'kube-ledger': kubeLedger },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    name: 'kube-ledger/k6-scripts',
    files: ['test/load/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './tsconfig.k6.json' } },
  },
  {
    name: 'kube-ledger/product-code',
    files: ['src/**/*.ts', 'bin/**/*.js', 'eslint-rules/**/*.js', 'eslint.config.js'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'error',
      'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES, skipBlankLines: true, skipComments: true }],
      complexity: ['error', MAX_COMPLEXITY],
    },
  },
  {
    name: 'kube-ledger/no-module-state',
    files: ['src/protocol/**/*.ts', 'src/scheduling/**/*.ts', 'src/ledger/**/*.ts', 'src/http/**/*.ts'],
    rules: { 'kube-ledger/no-module-state': ['error', { stateClasses: ['ClearingMemo', 'LRUCache'] }] },
  },
);
