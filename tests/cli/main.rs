//! Room `cli` of the integration tests: one test binary (`cargo test --test cli`) for the files
//! below, each a module named after its file (its tests are `FILE::test_name`). The command
//! line: the real `sendledger` binary, offline and against a real owner.
//!
//! Each test binary links the whole crate, so the files share five binaries instead of one each
//! (README, "Tests"): a new `tests/NAME.rs` gets its two lines in its room
//! (tests/architecture.rs checks that every file is in exactly one). A file that
//! scripts/test-windows.sh does not run under Wine stays out of the Windows build
//! (`cfg(not(windows))`), as before the rooms.

// Each file keeps its own `mod support;` (or harness), as when it was its own binary.
#![allow(clippy::duplicate_mod)]

#[path = "../cli_offline.rs"]
mod cli_offline;
#[cfg(not(windows))]
#[path = "../cli_output.rs"]
mod cli_output;
#[cfg(not(windows))]
#[path = "../cli_safety.rs"]
mod cli_safety;
#[path = "../cli_salvage.rs"]
mod cli_salvage;
#[path = "../cli_sites.rs"]
mod cli_sites;
#[cfg(not(windows))]
#[path = "../cli_stop.rs"]
mod cli_stop;
