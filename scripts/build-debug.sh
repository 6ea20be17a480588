#!/usr/bin/env bash
# Builds the debug programs the suites run — sendledger (and the tests' custody child),
# sendledger-tray, sendledger-app — into target/debug/, with the same feature resolution as
# `cargo test --workspace` (what scripts/test-all.sh's core step builds), so that every
# suite shares that one build instead of compiling the dependencies again.
#
# Why the whole workspace and a test target: cargo unifies a dependency's features over
# the packages selected and, when a test target is among them, over the dev-dependencies
# too. `cargo build --bin sendledger` alone resolves fewer features (no tray, no window, no
# proptest/criterion/tauri "test"), and every dependency whose features differ — and
# everything above it, the core included — is compiled a second time: about 350 of the
# Linux run's 1,650 compile units (docs/performance.md, "The suite's cost"). The test
# target named here (the `project` room, small) only brings the dev-dependencies into the
# resolution; after `cargo test --workspace` this build compiles nothing.
#   scripts/build-debug.sh [CARGO-BUILD-ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo build --workspace --bins --test project "$@"
