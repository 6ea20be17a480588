//! The window's launch: how a start of `sendledger-app` becomes the profile's one window,
//! hands itself to the window already running, or says why not. One concept, six files:
//! [`launcher`] makes sure the profile's tray (the owner) runs; [`desktop`] is the seam that
//! passes a launch to the running window (`desktop::pass`) and starts programs anew;
//! [`handover`] starts a dropped launch again (bounded tries); [`window`] holds the one
//! window's state; [`prepared`] is a window built hidden while the tray's menu is open;
//! [`lean`] sets its web view up for one small document (WebKit's caches).
//!
//! **Who holds the name.** One single-instance name per profile
//! (`Profile::window_bus_id`, D-Bus on Linux): the process whose window runs holds it,
//! from its plugin's start until its window ends (`CloseRequested`/`ExitRequested` →
//! [`window::mark_ending`], then the plugin lets the name go). A prepared window holds the
//! name too, while it waits hidden.
//!
//! **What a launch does, by what it finds** (`lib.rs::run`, in this order):
//!
//! | It finds | It does | Exit |
//! |---|---|---|
//! | no tray owning the profile (and it was not started by one) | starts the tray, waits for its `ready` line ([`launcher::ensure_tray`]); a refusal is relayed | the tray's code |
//! | no web view | says so where the desktop shows it | 4 |
//! | nobody holds the name | becomes the window: takes the name, shows the window ([`window::open`]) or, with `--prepared`, builds it hidden ([`prepared::await_show`]) | 0 at close |
//! | a window holds the name and keeps the launch (answers within `desktop::ANSWER_MS`, still holds the name `KEPT_MS` later) | hands over its arguments and ends; that window shows itself and takes the intent | 0 |
//! | a window that drops it or lets the name go meanwhile (it was closing) | starts again, up to [`handover::HANDOVER_TRIES`] times [`handover::HANDOVER_RETRY_MS`] apart ([`handover::start_again`]), then says why it did not open | 4 |
//! | a window that does not answer within `desktop::ANSWER_MS` | names that window's process in a sentence ([`handover::unanswered`]) | 4 |
//!
//! **What the window that holds the name does with a launch handed to it**:
//!
//! | Its state ([`window`]) | A launch handed over |
//! |---|---|
//! | `HIDDEN` (prepared, not asked for) | shown: the state becomes `SHOWN` ([`window::open`]); a `--prepared` launch asks nothing and is ignored |
//! | `SHOWN` | raised and focused, its intent (resume, pair) taken |
//! | `ENDING` (closing, or a prepared window let go) | started anew as a process of its own ([`handover::relaunch`]); a passed launch (`--passed`) starts again by itself instead |
//!
//! `HIDDEN → SHOWN` and `HIDDEN → ENDING` are each one atomic step
//! ([`window::end_unless_shown`]), so a show racing a prepared window's end is either shown
//! or started anew, never shown and then exited.

pub mod desktop;
pub mod handover;
pub mod launcher;
pub mod lean;
pub mod prepared;
pub mod window;
