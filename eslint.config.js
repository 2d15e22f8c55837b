// Lint: typescript-eslint's recommended rules plus the import-boundary rule of ARCHITECTURE.md (eslint/layers.js).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { kestrelPlugin } from './eslint/layers.js';

export default tseslint.config(
  // test/fixtures/hardhat3 is a user's Hardhat 3 project with its own dependencies, checked by Hardhat itself.
  { ignores: ['node_modules/', 'dist/', '.tools/', 'bin/bundle.mjs.cache/', 'test/fixtures/hardhat3/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // A leading underscore marks a parameter or binding kept on purpose (an interface's shape, a dropped field).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The Hardhat 2 project of test/integration/hardhat.test.ts is CommonJS with mocha globals, as Hardhat 2 runs it.
    files: ['test/fixtures/hardhat/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, ...globals.mocha } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The launcher is CommonJS (bin/package.json): a CommonJS entry starts without Node's ES module loader.
    files: ['bin/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read untyped JSON answers from the wire; fixture-extraction scripts read untyped fixture JSON.
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts', 'src/**/fixtures/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { kestrel: kestrelPlugin },
    rules: { 'kestrel/layers': 'error' },
  },
  {
    // The node runs on its own engine: ethereumjs's EVM, VM, state manager and trie are test oracles only
    // (devDependencies). src/evm/ is stricter still (below).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/evm/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@ethereumjs/evm', '@ethereumjs/vm', '@ethereumjs/statemanager', '@ethereumjs/mpt'],
              message: "runtime code uses Kestrel's engine and trie; this package is a devDependency (test oracle).",
            },
          ],
        },
      ],
    },
  },
  {
    // The engine is born free of ethereumjs: it replaces it.
    // (Tests may use @ethereumjs as the differential oracle.)
    files: ['src/evm/**/*.ts'],
    ignores: ['src/evm/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@ethereumjs/*'], message: 'src/evm/ imports no @ethereumjs package (ARCHITECTURE.md).' },
          ],
        },
      ],
    },
  },
);
