//! The tray's desktop seam: the event loop the tray icon lives on, the menu watch, signals,
//! standard streams, and the facts about window processes — everything that differs
//! between the Linux desktop (GTK, D-Bus, Unix signals) and Windows (a Win32 message loop,
//! console control events). One file per OS, chosen here and nowhere else in the tray;
//! what the core's seam already answers (`sendledger::platform`) is not repeated.
//! macOS has no file yet: the tray is not built for it (README, "macOS").

#[cfg(target_os = "linux")]
#[path = "linux.rs"]
mod os;
#[cfg(windows)]
#[path = "windows.rs"]
mod os;

pub use os::{
    ask_to_close, init, on_signals, process_lives, release_stdio, run, watch_menu, window_runs,
};

use sendledger::api::queue::QueueStatus;

/// What the tokio side asks of the desktop thread (the one the tray icon lives on).
pub enum ToDesktop {
    /// Show these counts and this gate.
    Show(Box<QueueStatus>),
    /// End the event loop: the tray quits.
    Quit,
}

/// Applies one message to the tray; `false` for Quit.
fn apply(tray: &mut crate::menu::Tray, msg: ToDesktop) -> bool {
    match msg {
        ToDesktop::Show(status) => {
            if let Err(e) = tray.show(&status) {
                tracing::warn!("cannot update the tray: {e}");
            }
            true
        }
        ToDesktop::Quit => false,
    }
}
