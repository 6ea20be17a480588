#!/usr/bin/env bash
# Installs e2e/browser's packages (Playwright's core, ESLint) with `npm ci`, pinned by
# e2e/browser/package-lock.json; no browser is downloaded (Debian's chromium is used).
# `npm ci` deletes node_modules and installs it all again (about 20 s): it is skipped when
# node_modules was installed by this script from this very package-lock.json (its SHA-256,
# written in node_modules after a good install). Exits non-zero when npm fails.
set -euo pipefail
cd "$(dirname "$0")/../e2e/browser"
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.sendledger-installed-from
if [[ $(cat "$stamp" 2>/dev/null) == "$lock_sum" ]]; then
  echo "(e2e/browser's packages already installed from this package-lock.json)"
  exit 0
fi
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
echo "$lock_sum" > "$stamp"
