// ESLint for the JavaScript that ships: the extension (extension/) and the window's page
// (ui/). Run from the repository's root with `-c` (the base path is the working folder) by
// scripts/lint-js.sh, which scripts/test-all.sh (CI) runs; ESLint is pinned in this
// folder's package-lock.json. The 70-line bound is the project's rule for every function,
// Rust and JS alike (tests/architecture.rs keeps it too): ESLint's count, every line.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ...js.configs.recommended, files: ['extension/**/*.js', 'ui/**/*.js'] },
  {
    files: ['extension/**/*.js', 'ui/**/*.js'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'script',
      // The files of one page share their top-level names (classic scripts: selectors.js
      // before content.js, app.js before connect.js), so an undefined name is not checked
      // here (no-undef off): the browser and app suites load them together. `status` and
      // `when` are our own top-level names, not the window's.
      globals: { ...globals.browser, ...globals.webextensions, status: 'off', when: 'off' },
    },
    rules: {
      'no-undef': 'off',
      'max-lines-per-function': ['error', { max: 70, skipBlankLines: false, skipComments: false }],
    },
  },
];
