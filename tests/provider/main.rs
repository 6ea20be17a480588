//! Room `provider` of the integration tests: one test binary (`cargo test --test provider`) for
//! the files below, each a module named after its file (its tests are `FILE::test_name`). The
//! sites' formats: chatgpt.com's and claude.ai's requests, streams and conversations, from the
//! project's fixtures (and the shared captures when present).
//!
//! Each test binary links the whole crate, so the files share five binaries instead of one each
//! (README, "Tests"): a new `tests/NAME.rs` gets its two lines in its room
//! (tests/architecture.rs checks that every file is in exactly one). A file that
//! scripts/test-windows.sh does not run under Wine stays out of the Windows build
//! (`cfg(not(windows))`), as before the rooms.

// Each file keeps its own `mod support;` (or harness), as when it was its own binary.
#![allow(clippy::duplicate_mod)]

#[path = "../chatgpt_artifacts.rs"]
mod chatgpt_artifacts;
#[path = "../chatgpt_conversation.rs"]
mod chatgpt_conversation;
#[path = "../chatgpt_inspect.rs"]
mod chatgpt_inspect;
#[path = "../chatgpt_page_says_no.rs"]
mod chatgpt_page_says_no;
#[path = "../chatgpt_request.rs"]
mod chatgpt_request;
#[path = "../chatgpt_shared_replay.rs"]
mod chatgpt_shared_replay;
#[path = "../chatgpt_stream.rs"]
mod chatgpt_stream;
#[path = "../claude_conversation.rs"]
mod claude_conversation;
#[path = "../claude_request.rs"]
mod claude_request;
#[path = "../claude_stream.rs"]
mod claude_stream;
