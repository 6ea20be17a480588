//! Room `bridge` of the integration tests: one test binary (`cargo test --test bridge`) for the
//! files below, each a module named after its file (its tests are `FILE::test_name`). The owner
//! over its loopback bridge: a real `sendledger serve` child, real HTTP, the extension's side
//! played by the tests.
//!
//! Each test binary links the whole crate, so the files share five binaries instead of one each
//! (README, "Tests"): a new `tests/NAME.rs` gets its two lines in its room
//! (tests/architecture.rs checks that every file is in exactly one). A file that
//! scripts/test-windows.sh does not run under Wine stays out of the Windows build
//! (`cfg(not(windows))`), as before the rooms.

// Each file keeps its own `mod support;` (or harness), as when it was its own binary.
#![allow(clippy::duplicate_mod)]

#[cfg(not(windows))]
#[path = "../bridge_artifacts.rs"]
mod bridge_artifacts;
#[path = "../bridge_attachment_doors.rs"]
mod bridge_attachment_doors;
#[cfg(not(windows))]
#[path = "../bridge_attachments.rs"]
mod bridge_attachments;
#[path = "../bridge_automatic.rs"]
mod bridge_automatic;
#[path = "../bridge_claude.rs"]
mod bridge_claude;
#[cfg(not(windows))]
#[path = "../bridge_clock_jump.rs"]
mod bridge_clock_jump;
#[cfg(not(windows))]
#[path = "../bridge_connections.rs"]
mod bridge_connections;
#[cfg(not(windows))]
#[path = "../bridge_crash.rs"]
mod bridge_crash;
#[cfg(not(windows))]
#[path = "../bridge_depth.rs"]
mod bridge_depth;
#[path = "../bridge_destination.rs"]
mod bridge_destination;
#[cfg(not(windows))]
#[path = "../bridge_displaced.rs"]
mod bridge_displaced;
#[path = "../bridge_events.rs"]
mod bridge_events;
#[cfg(not(windows))]
#[path = "../bridge_field_names.rs"]
mod bridge_field_names;
#[path = "../bridge_harvest.rs"]
mod bridge_harvest;
#[cfg(not(windows))]
#[path = "../bridge_key_scopes.rs"]
mod bridge_key_scopes;
#[cfg(not(windows))]
#[path = "../bridge_load.rs"]
mod bridge_load;
#[path = "../bridge_loop.rs"]
mod bridge_loop;
#[path = "../bridge_model_downgrade.rs"]
mod bridge_model_downgrade;
#[path = "../bridge_observations.rs"]
mod bridge_observations;
#[path = "../bridge_one_poll.rs"]
mod bridge_one_poll;
#[path = "../bridge_openai.rs"]
mod bridge_openai;
#[cfg(not(windows))]
#[path = "../bridge_page_changed.rs"]
mod bridge_page_changed;
#[cfg(not(windows))]
#[path = "../bridge_page_check.rs"]
mod bridge_page_check;
#[path = "../bridge_page_refused.rs"]
mod bridge_page_refused;
#[path = "../bridge_page_says_no.rs"]
mod bridge_page_says_no;
#[path = "../bridge_parallel.rs"]
mod bridge_parallel;
#[path = "../bridge_queue_feed.rs"]
mod bridge_queue_feed;
#[path = "../bridge_refusals.rs"]
mod bridge_refusals;
#[path = "../bridge_release.rs"]
mod bridge_release;
#[path = "../bridge_stop_race.rs"]
mod bridge_stop_race;
#[path = "../bridge_wait.rs"]
mod bridge_wait;
#[path = "../bridge_withdraw.rs"]
mod bridge_withdraw;
#[cfg(not(windows))]
#[path = "../bridge_work_mode.rs"]
mod bridge_work_mode;
