//! The window's desktop seam: how a launch reaches the profile's running window, how this
//! program starts itself again, and how the tray is started to outlive it — everything
//! that differs between the Linux desktop (D-Bus, `exec`, process groups) and Windows.
//! One file per OS, chosen here and nowhere else in the window crate (besides the
//! single-instance plugin's own per-OS builder API, which `single_instance` wraps).
//! macOS has no file yet: the window is not built for it (README, "macOS").

#[cfg(target_os = "linux")]
#[path = "linux.rs"]
mod os;
#[cfg(windows)]
#[path = "windows.rs"]
mod os;

pub use os::{exec, outlive_this_process, pass, quote_arg, single_instance, tell};

/// How long the running window may take to answer a launch, in ms.
pub const ANSWER_MS: i32 = 5_000;

/// What became of the launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Passed {
    /// No window of this profile runs (or no session bus): this launch is the window.
    NoWindow,
    /// The running window took it and still runs: nothing more to do.
    Taken,
    /// The window dropped it or ended as it took it (`why`): start again
    /// ([`crate::handover::start_again`]).
    Dropped(String),
    /// The window (pid, if the bus knew it) did not answer within [`ANSWER_MS`].
    Unanswered(Option<u32>),
}

/// The argument a passed launch carries, so a window that is ending leaves the launch to
/// start again by itself ([`crate::Args::passed`]) instead of starting it anew too.
pub const PASSED_ARG: &str = "--passed";
