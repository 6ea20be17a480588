#!/usr/bin/env bash
# The browser end-to-end suite: the real extension (extension/) in Debian's Chromium,
# headless, against local HTTPS fakes of chatgpt.com (e2e/browser/fake-chatgpt/) and claude.ai
# (e2e/browser/fake-claude/; `scripts/test-browser.sh claude` runs its scenarios), with a real
# `sendledger serve` child process as the owner. Screenshots go to
# target/e2e-screenshots/browser/, owner logs to target/e2e-logs/browser/.
#
#   scripts/test-browser.sh               every scenario
#   scripts/test-browser.sh two_tabs      scenarios whose name contains a word
#   SENDLEDGER_BROWSER_RUNS=2 scripts/test-browser.sh   two runs side by side, one queue
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

# At most 4 runs: each is a Chromium, fakes and owners of its own, and the timing checks
# of the scenarios assume the machine is not swamped.
runs="${SENDLEDGER_BROWSER_RUNS:-1}"
if ! [[ $runs =~ ^[1-4]$ ]]; then
  echo "test-browser: SENDLEDGER_BROWSER_RUNS is \"$runs\": give a number of runs from 1 to 4" >&2
  echo "0 passed, 1 failed"; exit 2
fi

echo "== browser e2e: build the owner"
scripts/build-debug.sh

echo "== browser e2e: npm ci (scripts/npm-ci-browser.sh)"
scripts/npm-ci-browser.sh

echo "== browser e2e: replay of the page reports (tests/fixtures/page-reports/)"
SENDLEDGER_CHROMIUM="$chromium_bin" node e2e/browser/replay-reports.mjs

mkdir -p target/e2e-screenshots/browser target/e2e-logs/browser
if [[ $runs -le 1 ]]; then
  echo "== browser e2e: scenarios"
  SENDLEDGER_CHROMIUM="$chromium_bin" node e2e/browser/run.mjs "$@"
  exit
fi
# Side by side (SENDLEDGER_BROWSER_RUNS=N): N runs of run.mjs take the scenarios from one
# queue, each scenario once (run.mjs, SENDLEDGER_BROWSER_CLAIMS); each run's output is in
# target/e2e-logs/browser/run-K.log, printed here when all have ended, then the total.
echo "== browser e2e: scenarios, $runs runs side by side"
claims=$(mktemp -d "${TMPDIR:-/tmp}/sendledger-browser-claims-XXXXXX")
trap 'rm -rf "$claims"' EXIT
pids=()
for k in $(seq 1 "$runs"); do
  SENDLEDGER_BROWSER_CLAIMS="$claims" SENDLEDGER_CHROMIUM="$chromium_bin" \
    node e2e/browser/run.mjs "$@" > "target/e2e-logs/browser/run-$k.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
passed=0; failed=0
for k in $(seq 1 "$runs"); do
  log="target/e2e-logs/browser/run-$k.log"
  echo "-- run $k of $runs"; cat "$log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
  if [[ -z $line ]]; then failed=$((failed + 1)); echo "test-browser: run $k ended without its total" >&2; continue; fi
  passed=$((passed + $(echo "$line" | cut -d' ' -f1))); failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
done
echo "$passed passed, $failed failed"
[[ $status -eq 0 && $failed -eq 0 ]]
