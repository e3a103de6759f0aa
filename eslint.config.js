import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    ignores: ['target/**', 'pkg/**', 'dist/**', 'node_modules/**', '**/node_modules/**', 'tests/vite/dist/**', 'tests/react/dist/**', 'tests/frameworks/out/**', '.tmp/**'],
  },
  js.configs.recommended,
  {
    files: ['npm/**/*.js'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      // The shim runs in browsers and in Node.
      globals: { ...globals.browser, ...globals.node },
    },
  },
  {
    files: ['scripts/**/*.{js,mjs}', 'tests/**/*.mjs', 'bench/**/*.mjs', 'eslint.config.js'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.node },
    },
  },
  {
    // Playwright drivers: functions passed to page.evaluate run in the page.
    files: ['tests/vite/run.mjs', 'tests/react/run.mjs', 'tests/passkey/run.mjs', 'tests/store/run.mjs', 'tests/isolate/run.mjs', 'tests/frameworks/run.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // Code that runs in the page (Vite app, demo page, the framework fixtures and their
    // route handlers, which use the web Request/Response).
    files: ['tests/vite/main.js', 'examples/**/*.js', 'tests/frameworks/fixtures/**/*.js'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.browser },
    },
  },
  {
    // The React e2e app and the Next.js fixture (JSX, in the page).
    files: ['tests/react/**/*.jsx', 'tests/frameworks/fixtures/**/*.jsx'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      parserOptions: { ecmaFeatures: { jsx: true } },
      globals: { ...globals.browser },
    },
  },
  {
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Core ESLint does not see a component used in JSX: capitalised names are components.
    files: ['tests/react/**/*.jsx', 'tests/frameworks/fixtures/**/*.jsx'],
    rules: { 'no-unused-vars': ['error', { varsIgnorePattern: '^[A-Z]' }] },
  },
];
