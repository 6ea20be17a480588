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
mkdir -p target
passed=0; failed=0; status=0
# Line tables only in the Linux debug builds: panics and backtraces keep file and line, the
# objects and links are smaller and faster (the Windows run has none: scripts/test-windows.sh).
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"
# A cold CI run builds everything once: incremental caches would only take disk (about a
# quarter of target/); CI's disk is shared and has run out (README, "Tests").
[[ ${CI:-} == true ]] && export CARGO_INCREMENTAL=0

# Each step's wall time, said at the end (what a cold CI run spends where) and written to
# target/test-times.tsv (`KEY<TAB>seconds`, "whole" for the run), which CI checks against
# the README's budget (scripts/check-times.sh; "Tests", "Budget").
times=(); started=$SECONDS; current=""; key=""
: > target/test-times.tsv
record() { # KEY SECONDS DESCRIPTION
  times+=("$3 $2 s"); printf '%s\t%s\n' "$1" "$2" >> target/test-times.tsv
}
step() { # KEY DESCRIPTION
  [[ -n $current ]] && record "$key" $((SECONDS - started)) "$current"
  key=$1; shift; current="$*"; started=$SECONDS
  echo; echo "== $*"
  df -h . | awk 'NR == 2 { print "(disk: " $4 " free, target/ " t ")" }' t="$(du -sh target 2>/dev/null | cut -f1)"
}
count() { # sums "N passed" / "N failed" from a log of cargo test or a suite's closing line
  local log=$1 p f
  p=$(grep -Eo '(ok\. |^|[^0-9])[0-9]+ passed' "$log" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null || echo 0)
  f=$(grep -Eo '[0-9]+ failed' "$log" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null || echo 0)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
}

step setup "setup: the packages the suites need (scripts/setup.sh --test)"
scripts/setup.sh --test || exit 1

step lint "fmt and the JS lint (clippy runs in the core step's build)"
cargo fmt --all -- --check || status=1
scripts/lint-js.sh 2>&1 | tee target/test-lint-js.log
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
count target/test-lint-js.log

step core "core: clippy and the build, then ledger, provider, bridge, CLI, the window's commands, the tray's tests"
# Clippy lints the workspace's crates while they are built for the tests: clippy's driver
# as cargo's wrapper for the workspace's own crates (what `cargo clippy` runs, with
# `-D warnings` passed the way cargo-clippy passes it), so the dependencies are compiled
# once, not checked once for clippy and then built again (about 650 units). Every later cargo
# command of the run keeps the wrapper (cargo counts it in a crate's fingerprint: without it
# the suites' builds would compile the workspace again); the Windows build drops it.
# Without clippy's driver at hand, `cargo clippy` runs first, as before.
clippy_driver=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)
if [[ -n $clippy_driver ]]; then
  export RUSTC_WORKSPACE_WRAPPER=$clippy_driver CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
  # --all-targets: the benches and examples too, as `cargo clippy --all-targets` lints them.
  cargo test --workspace --all-targets --no-run 2>&1 | tee target/test-clippy.log
  [[ ${PIPESTATUS[0]} -eq 0 ]] || { status=1; echo "FAILED: clippy or the build (target/test-clippy.log)"; }
else
  echo "(clippy's driver not found: cargo clippy first)"
  cargo clippy --workspace --all-targets -- -D warnings || status=1
fi
export SENDLEDGER_LINTED=1  # scripts/test-app.sh: clippy has run over the workspace
# --workspace: one build of the dependencies for the core, the window and the tray, which
# every suite after this one reuses (scripts/build-debug.sh compiles nothing after it).
cargo test --workspace --no-fail-fast 2>&1 | tee target/test-core.log
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
count target/test-core.log
export SENDLEDGER_APP_TESTS_RAN=1  # scripts/test-app.sh: the step above ran the app's cargo tests

# The Windows cross-build is CPU only (about a quarter of a cold run's time when it had the
# machine to itself), and the suites after the core step mostly wait: it starts now, at
# idle priority (`chrt --idle`: the kernel gives it a core only when nothing else wants
# one, so the suites keep their pace and timing), and the Windows step waits for what is
# left of it. Started before the core step instead, it slowed the core's build and was
# further from done at the Windows step (docs/performance.md, "The suite's cost"). It builds
# into a directory of its own, target/windows/ (cargo locks a build directory while it
# builds, and the suites' own cargo commands would wait on that lock). Both builds on disk
# at once need room: with less than $windows_beside_gb GB free here (the Linux build takes
# about 5 of them) it is built in the Windows step, as before.
windows_beside_gb=18
windows_dir="$PWD/target/windows"
windows_build_pid=""
free_gb=$(df --output=avail -BG . | tail -n 1 | tr -dc '0-9')
if [[ ${free_gb:-0} -ge $windows_beside_gb ]]; then
  echo; echo "== windows build: started beside the suites at idle priority (${free_gb} GB free; log: target/test-windows-build.log)"
  rm -f target/test-windows-build.rc
  ( export CARGO_TARGET_DIR=$windows_dir; unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
    nice -n 19 ionice -c 3 chrt --idle 0 scripts/test-windows.sh --build-only
    echo $? > target/test-windows-build.rc ) \
    > target/test-windows-build.log 2>&1 &
  windows_build_pid=$!
else
  echo; echo "== windows build: left for the Windows step (${free_gb:-?} GB free, under $windows_beside_gb)"
fi

total() { # LOG NAME: counts the suite's own total, its last such line (the browser suite prints each run's too)
  tail -n 5 "$1" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1 > "target/test-$2.count" || true
  count "target/test-$2.count"
}
suite() { # NAME: scripts/test-NAME.sh, its output in target/test-NAME.log, its total counted
  scripts/test-$1.sh 2>&1 | tee "target/test-$1.log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  total "target/test-$1.log" "$1"
}
# A suite beside the others: `beside NAME COMMAND…` starts it in the background, its
# output in target/test-NAME.log; `collect NAME` waits for it, prints that output and
# counts its status and total.
declare -A beside_pids
beside() {
  local name=$1 began=$SECONDS; shift
  echo; echo "== $name end-to-end: started beside the next steps (output below, when collected)"
  ( "$@" > "target/test-$name.log" 2>&1; echo $? > "target/test-$name.rc"
    echo $((SECONDS - began)) > "target/test-$name.seconds" ) &
  beside_pids[$name]=$!
}
collect() {
  wait "${beside_pids[$1]}"
  cat "target/test-$1.log"
  [[ $(cat "target/test-$1.rc" 2>/dev/null) == 0 ]] || status=1
  total "target/test-$1.log" "$1"
  echo "(the $1 suite's own run: $(cat "target/test-$1.seconds" 2>/dev/null) s)"
}

# The OpenAI suite spends most of its ≈ 7 min waiting on a six-minute answer: it runs beside
# the MCP and browser suites (its own owner copy, ports, profiles and logs). The browser
# scenarios wait on pages and owners more than they compute (one run used half of the two
# cores): two runs side by side take them from one queue (scripts/test-browser.sh).
beside openai scripts/test-openai.sh
export SENDLEDGER_BROWSER_RUNS=${SENDLEDGER_BROWSER_RUNS:-2}
for name in mcp browser app; do
  step "$name" "$name end-to-end"
  suite "$name"
  if [[ $name == browser ]]; then
    step openai "openai end-to-end: collected (the wait after the browser suite)"
    collect openai
  fi
done

# In CI the Windows step needs none of the Linux build: its space goes to the Windows one.
[[ ${CI:-} == true ]] && rm -rf target/debug
step windows "windows end-to-end"
export CARGO_TARGET_DIR=$windows_dir; unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
if [[ -n $windows_build_pid ]]; then
  waited=$SECONDS
  wait "$windows_build_pid"
  echo "(the Windows build beside the suites: ended with status $(cat target/test-windows-build.rc 2>/dev/null), $((SECONDS - waited)) s waited for here; its last lines:)"
  tail -n 3 target/test-windows-build.log
fi
suite windows

record "$key" $((SECONDS - started)) "$current"
printf 'whole\t%s\n' "$SECONDS" >> target/test-times.tsv
echo
echo "== times: $(IFS=';'; echo "${times[*]}" | sed 's/;/; /g'); whole run $SECONDS s"
# CI only: a step over its budget in the README by more than the margin fails the run (the
# times of a developer's machine, warm or shared, say nothing about CI's).
if [[ ${CI:-} == true ]]; then
  echo "== budget (README, \"Tests\"): this run's step times"
  scripts/check-times.sh target/test-times.tsv || status=1
fi
[[ $status -eq 0 && $failed -eq 0 ]] || echo "FAILED: see the sections above"
echo "$passed passed, $failed failed"
[[ $status -eq 0 && $failed -eq 0 ]]
