//! Room `project` of the integration tests: one test binary (`cargo test --test project`) for
//! the files below, each a module named after its file (its tests are `FILE::test_name`). The
//! project's shape and its outer surfaces: the architecture's arrows, the packaging's file
//! list, API keys, the client's routes, error codes, the MCP outcome and verdicts.
//!
//! Each test binary links the whole crate, so the files share five binaries instead of one each
//! (README, "Tests"): a new `tests/NAME.rs` gets its two lines in its room
//! (tests/architecture.rs checks that every file is in exactly one). A file that
//! scripts/test-windows.sh does not run under Wine stays out of the Windows build
//! (`cfg(not(windows))`), as before the rooms.

// Each file keeps its own `mod support;` (or harness), as when it was its own binary.
#![allow(clippy::duplicate_mod)]

#[path = "../api_keys.rs"]
mod api_keys;
#[cfg(not(windows))]
#[path = "../architecture.rs"]
mod architecture;
#[path = "../client_routes.rs"]
mod client_routes;
#[path = "../error_codes.rs"]
mod error_codes;
#[path = "../mcp_outcome.rs"]
mod mcp_outcome;
#[cfg(not(windows))]
#[path = "../packaging.rs"]
mod packaging;
#[path = "../settings_acts.rs"]
mod settings_acts;
#[path = "../verdict.rs"]
mod verdict;
