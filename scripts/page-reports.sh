#!/usr/bin/env bash
# Regenerates the page reports of the fake page checked in under tests/fixtures/page-reports/
# (issue 35; docs/extension.md, "The page report"): runs the browser suite's report
# scenarios with SENDLEDGER_WRITE_PAGE_REPORTS=1, which write each report they saved and
# proved (scanned for text, tokens and ids; replayed to the same classification), then
# replays every report. Run it after the page contract or the fake page changed on purpose,
# and review the diff: a report whose classification changed is a page the contract now
# reads otherwise.
#
#   scripts/page-reports.sh
#
# Needs what scripts/test-browser.sh needs.
set -euo pipefail
cd "$(dirname "$0")/.."
chromium_bin="${SENDLEDGER_CHROMIUM:-/usr/lib/chromium/chromium}"
cargo build --bin sendledger
scripts/npm-ci-browser.sh
mkdir -p target/e2e-screenshots/browser target/e2e-logs/browser tests/fixtures/page-reports
SENDLEDGER_WRITE_PAGE_REPORTS=1 SENDLEDGER_CHROMIUM="$chromium_bin" node e2e/browser/run.mjs reports
SENDLEDGER_CHROMIUM="$chromium_bin" node e2e/browser/replay-reports.mjs
