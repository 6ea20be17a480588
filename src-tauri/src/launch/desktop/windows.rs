//! Windows: tauri-plugin-single-instance hands a second launch over to the running window
//! by itself (a named mutex and a message to its hidden window) and ends the launch, so
//! there is no bounded pass of our own before Tauri starts; its name is the app's
//! identifier, one window per user rather than per profile. Windows has no `exec`: a
//! launch that starts again runs the new process and leaves with its exit code. The tray
//! is started detached from this window's console.

use super::Passed;
use sendledger::profile::Profile;
use std::os::windows::process::CommandExt;
use std::process::Command;

/// `CREATE_NEW_PROCESS_GROUP | DETACHED_PROCESS`: Ctrl-C in this window's console does not
/// reach the tray, and the tray has no console of its own.
const DETACHED: u32 = 0x0000_0200 | 0x0000_0008;

/// No pass before Tauri starts (see the module's note): this launch goes on, and the
/// plugin hands it over if a window runs.
pub fn pass(_profile: &Profile, _argv: Vec<String>) -> Passed {
    Passed::NoWindow
}

/// The single-instance plugin as it is on Windows (named after the app's identifier).
pub fn single_instance<R: tauri::Runtime>(
    builder: tauri_plugin_single_instance::Builder<R>,
    _profile: &Profile,
) -> tauri_plugin_single_instance::Builder<R> {
    builder
}

/// Runs `command` in this one's place: waits for it and exits with its code (Windows has
/// no `exec`); returns only when it could not start, with why.
pub fn exec(command: &mut Command) -> std::io::Error {
    match command.status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(e) => e,
    }
}

/// Starts `command` detached from this window's console, so it outlives this window.
pub fn outlive_this_process(command: &mut Command) -> &mut Command {
    command.creation_flags(DETACHED)
}

/// Shows `sentence` in a message box (a launch from the Start menu has no console to read
/// stderr in) and returns when the person closes it.
pub fn tell(sentence: &str) {
    use windows_sys::Win32::UI::WindowsAndMessaging::{MessageBoxW, MB_ICONWARNING, MB_OK};
    let wide = |s: &str| s.encode_utf16().chain(Some(0)).collect::<Vec<u16>>();
    let (text, title) = (wide(sentence), wide("sendledger"));
    // SAFETY: both strings are NUL-terminated UTF-16 that outlive the call; no owner window.
    unsafe {
        MessageBoxW(
            std::ptr::null_mut(),
            text.as_ptr(),
            title.as_ptr(),
            MB_OK | MB_ICONWARNING,
        )
    };
}

/// One argument of the log-in entry's command, quoted as a Windows command line (the Run value) reads it.
pub use crate::autostart::quote_for_windows as quote_arg;
