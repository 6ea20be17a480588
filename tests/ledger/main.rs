//! Room `ledger` of the integration tests: one test binary (`cargo test --test ledger`) for the
//! files below, each a module named after its file (its tests are `FILE::test_name`). The
//! ledger's rules through its public API: a real SQLite file, a manual clock, custody children
//! killed with SIGKILL.
//!
//! Each test binary links the whole crate, so the files share five binaries instead of one each
//! (README, "Tests"): a new `tests/NAME.rs` gets its two lines in its room
//! (tests/architecture.rs checks that every file is in exactly one). A file that
//! scripts/test-windows.sh does not run under Wine stays out of the Windows build
//! (`cfg(not(windows))`), as before the rooms.

// Each file keeps its own `mod support;` (or harness), as when it was its own binary.
#![allow(clippy::duplicate_mod)]

#[path = "../ledger_artifacts.rs"]
mod ledger_artifacts;
#[path = "../ledger_attachments.rs"]
mod ledger_attachments;
#[path = "../ledger_clock.rs"]
mod ledger_clock;
#[path = "../ledger_counts.rs"]
mod ledger_counts;
#[cfg(not(windows))]
#[path = "../ledger_damage.rs"]
mod ledger_damage;
#[path = "../ledger_deadlines.rs"]
mod ledger_deadlines;
#[path = "../ledger_destination.rs"]
mod ledger_destination;
#[path = "../ledger_door.rs"]
mod ledger_door;
#[path = "../ledger_kill.rs"]
mod ledger_kill;
#[path = "../ledger_lease.rs"]
mod ledger_lease;
#[path = "../ledger_lifecycle.rs"]
mod ledger_lifecycle;
#[path = "../ledger_model.rs"]
mod ledger_model;
#[path = "../ledger_owner.rs"]
mod ledger_owner;
#[path = "../ledger_page_error.rs"]
mod ledger_page_error;
#[path = "../ledger_page_gate.rs"]
mod ledger_page_gate;
#[path = "../ledger_parallel.rs"]
mod ledger_parallel;
#[cfg(not(windows))]
#[path = "../ledger_profile.rs"]
mod ledger_profile;
#[cfg(not(windows))]
#[path = "../ledger_reserve.rs"]
mod ledger_reserve;
#[path = "../ledger_retention.rs"]
mod ledger_retention;
#[path = "../ledger_schema.rs"]
mod ledger_schema;
#[path = "../ledger_sections.rs"]
mod ledger_sections;
#[path = "../ledger_site_holds.rs"]
mod ledger_site_holds;
#[path = "../ledger_stop.rs"]
mod ledger_stop;
#[path = "../ledger_titles.rs"]
mod ledger_titles;
#[path = "../ledger_tool_calls.rs"]
mod ledger_tool_calls;
#[path = "../ledger_withdraw.rs"]
mod ledger_withdraw;
