#!/usr/bin/env bash
# Runs every test sendledger has: formatting and lints, the core's unit and integration
# tests (real SQLite files, real child processes killed with SIGKILL, the loopback
# bridge), the MCP suite (the official Python MCP SDK driving `sendledger mcp`), the
# browser end-to-end suite (real Chromium + the real extension against a
# local fake chatgpt.com), the tray app's end-to-end suite (real window under Xvfb) and
# the Windows suite (the core built for Windows, its integration tests and the installer
# under Wine).
# Installs what it needs first. Exits non-zero on any failure; the last line is the total.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test || exit 1
mkdir -p target
passed=0; failed=0; status=0
# Line tables only in the Linux debug builds: panics and backtraces keep file and line, the
# objects and links are smaller and faster (the Windows run has none: scripts/test-windows.sh).
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"
# A cold CI run builds everything once: incremental caches would only take disk (about a
# quarter of target/); CI's disk is shared and has run out (README, "Tests").
[[ ${CI:-} == true ]] && export CARGO_INCREMENTAL=0

# Each step's wall time, said at the end (what a cold CI run spends where).
times=(); started=$SECONDS; current=""
step() {
  [[ -n $current ]] && times+=("$current $((SECONDS - started)) s")
  current="$*"; started=$SECONDS
  echo; echo "== $*"
  df -h . | awk 'NR == 2 { print "(disk: " $4 " free, target/ " t ")" }' t="$(du -sh target 2>/dev/null | cut -f1)"
}
count() { # sums "N passed" / "N failed" from a log of cargo test or a suite's closing line
  local log=$1 p f
  p=$(grep -Eo '(ok\. |^|[^0-9])[0-9]+ passed' "$log" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null || echo 0)
  f=$(grep -Eo '[0-9]+ failed' "$log" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null || echo 0)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
}

step "fmt, clippy and the JS lint"
cargo fmt --all -- --check || status=1
cargo clippy --all-targets -- -D warnings || status=1
scripts/lint-js.sh 2>&1 | tee target/test-lint-js.log
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
count target/test-lint-js.log

step "core: ledger, provider, bridge, CLI"
cargo test --no-fail-fast 2>&1 | tee target/test-core.log
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
count target/test-core.log

for suite in mcp openai browser app windows; do
  # In CI the Windows step needs none of the Linux build: its space goes to the Windows one.
  [[ $suite == windows && ${CI:-} == true ]] && rm -rf target/debug
  step "$suite end-to-end"
  scripts/test-$suite.sh 2>&1 | tee "target/test-$suite.log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  tail -n 5 "target/test-$suite.log" | grep -E '^[0-9]+ passed, [0-9]+ failed' > "target/test-$suite.count" || true
  count "target/test-$suite.count"
done

times+=("$current $((SECONDS - started)) s")
echo
echo "== times: $(IFS=';'; echo "${times[*]}" | sed 's/;/; /g'); whole run $SECONDS s"
[[ $status -eq 0 && $failed -eq 0 ]] || echo "FAILED: see the sections above"
echo "$passed passed, $failed failed"
[[ $status -eq 0 && $failed -eq 0 ]]
