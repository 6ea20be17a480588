#!/usr/bin/env bash
# The browser end-to-end suite: the real extension (extension/) in Debian's Chromium,
# headless, against local HTTPS fakes of chatgpt.com (e2e/browser/fake-chatgpt/) and claude.ai
# (e2e/browser/fake-claude/; `scripts/test-browser.sh claude` runs its scenarios), with a real
# `sendledger serve` child process as the owner. Screenshots go to
# target/e2e-screenshots/browser/, owner logs to target/e2e-logs/browser/.
#
#   scripts/test-browser.sh               every scenario
#   scripts/test-browser.sh two_tabs      scenarios whose name contains a word
#
# The page reports under tests/fixtures/page-reports/ are replayed first (replay-reports.mjs).
#
# Needs: chromium (Debian's; /usr/lib/chromium/chromium), node + npm, openssl
# (scripts/setup.sh --test installs them). The certificate for chatgpt.com and claude.ai is made at run
# time; no browser is downloaded. Exits non-zero when a scenario fails.
set -euo pipefail
cd "$(dirname "$0")/.."

chromium_bin="${SENDLEDGER_CHROMIUM:-/usr/lib/chromium/chromium}"
for need in node npm openssl; do
  command -v "$need" >/dev/null || { echo "test-browser: $need not found: run scripts/setup.sh --test" >&2; exit 1; }
done
[[ -x "$chromium_bin" ]] || { echo "test-browser: $chromium_bin not found: run scripts/setup.sh --test (Debian package chromium)" >&2; exit 1; }

echo "== browser e2e: build the owner"
scripts/build-debug.sh

echo "== browser e2e: npm ci"
(cd e2e/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)

echo "== browser e2e: replay of the page reports (tests/fixtures/page-reports/)"
SENDLEDGER_CHROMIUM="$chromium_bin" node e2e/browser/replay-reports.mjs

echo "== browser e2e: scenarios"
mkdir -p target/e2e-screenshots/browser target/e2e-logs/browser
SENDLEDGER_CHROMIUM="$chromium_bin" node e2e/browser/run.mjs "$@"
