// ESLint (typescript-eslint) over the whole repository; Prettier owns the layout (.prettierrc.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.tmp/',
      'data/',
      'src/validation/schemas.ts',
      'src/validation/schema-types.ts',
      'src/validation/compiled-validators.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        performance: 'readonly',
        __dirname: 'readonly',
        __filename: 'readonly',
        require: 'readonly',
        module: 'writable',
      },
    },
    rules: {
      // A comma-operator return (`return skip(r), null`) hides a side effect in an expression.
      'no-sequences': 'error',
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'prefer-const': 'error',
      // Prettier wraps code at 140; what it cannot wrap (a long string: a test's name, a sample log line) may stay.
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
  {
    // chai's property assertions (`expect(x).to.be.true`) are expressions by design; response bodies in tests
    // are JSON read back as it came (typed by the assertions), and a test may look for control characters.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-explicit-any': 'off', 'no-control-regex': 'off' },
  },
  {
    // CommonJS stand-ins loaded by the executables' bundles.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { exports: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
