#!/usr/bin/env bash
# Lints the JavaScript that ships (extension/, ui/) with ESLint, pinned in
# e2e/browser/package-lock.json (installed here by scripts/npm-ci-browser.sh): the
# recommended rules and the project's 70-line bound on every function
# (e2e/browser/eslint.config.mjs); then e2e/browser/contract-check.mjs (the page contract's
# table in docs/extension.md and page-observer.js's routes). scripts/test-all.sh runs it with fmt and clippy.
# The last line is `N passed, N failed` (1 check).
set -uo pipefail
cd "$(dirname "$0")/.."
eslint=e2e/browser/node_modules/.bin/eslint
scripts/npm-ci-browser.sh \
  || { echo "lint-js: npm ci in e2e/browser failed (npm and the registry are needed)" >&2; echo "0 passed, 1 failed"; exit 1; }
# ESLint, then the page contract against docs/extension.md's table and page-observer.js's routes.
if "$eslint" -c e2e/browser/eslint.config.mjs extension ui && node e2e/browser/contract-check.mjs; then
  echo "1 passed, 0 failed"
else
  echo "lint-js: fix what ESLint or contract-check says above (a function over 70 lines: split it; a changed fact: node e2e/browser/contract-check.mjs --write)" >&2
  echo "0 passed, 1 failed"; exit 1
fi
