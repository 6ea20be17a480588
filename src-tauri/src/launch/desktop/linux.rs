//! Linux: a launch passes itself to the running window over the session bus with bounds
//! ([`pass`]); the single-instance name is per profile (`Profile::window_bus_id`); a
//! launch starts again with `exec` (the same pid); the tray runs in a process group of
//! its own.

#[path = "pass.rs"]
mod pass_over_dbus;

use super::Passed;
use sendledger::profile::Profile;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Passes this launch (`argv`, the program first) to the profile's running window.
pub fn pass(profile: &Profile, argv: Vec<String>) -> Passed {
    pass_over_dbus::pass(&profile.window_bus_id(), argv)
}

/// The single-instance plugin with one D-Bus name per profile.
pub fn single_instance<R: tauri::Runtime>(
    builder: tauri_plugin_single_instance::Builder<R>,
    profile: &Profile,
) -> tauri_plugin_single_instance::Builder<R> {
    builder.dbus_id(profile.window_bus_id())
}

/// Replaces this process by `command` (`exec`: the same pid, stdin and environment);
/// returns only when that failed, with why.
pub fn exec(command: &mut Command) -> std::io::Error {
    command.exec()
}

/// Starts `command` in a process group of its own, so it outlives this window.
pub fn outlive_this_process(command: &mut Command) -> &mut Command {
    command.process_group(0)
}

/// Nothing more to show: the sentence is already on stderr, which a desktop launch logs.
pub fn tell(_sentence: &str) {}

/// One argument of the log-in entry's command, quoted as a desktop entry's `Exec` line (the XDG autostart entry) reads it.
pub use crate::autostart::quote_for_desktop_entry as quote_arg;
