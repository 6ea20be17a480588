//! The Windows desktop: the tray icon (tray-icon's Win32 notification-area icon and its
//! popup menu) lives on this thread's Win32 message loop; console control events quit;
//! the window processes are asked to close with `taskkill` (WM_CLOSE), not a signal.
//!
//! What Linux has and Windows does not, yet: the window is not prepared while the menu is
//! open (it starts when *Open queue* is clicked), and whether a window of the profile
//! runs is known only for the windows this tray started (tauri-plugin-single-instance
//! hands a second launch over to the first by itself on Windows).

use super::{apply, ToDesktop};
use crate::menu::Tray;
use crate::window::Windows;
use std::process::{Child, Command, Stdio};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TryRecvError;

/// How long the message loop waits for a Win32 message before it looks at the channel
/// from the tokio side, in ms: the bound on how late a count is shown.
pub const CHANNEL_LOOK_MS: u32 = 100;

/// Nothing to start: Win32 needs no toolkit.
pub fn init() -> Result<(), String> {
    Ok(())
}

/// Runs the Win32 message loop of this thread (the tray icon's window and menu are
/// dispatched here) until Quit, applying what the tokio side sends between messages.
pub fn run(mut tray: Tray, mut rx: mpsc::UnboundedReceiver<ToDesktop>) {
    use windows_sys::Win32::UI::WindowsAndMessaging::{
        DispatchMessageW, MsgWaitForMultipleObjects, PeekMessageW, TranslateMessage, MSG,
        PM_REMOVE, QS_ALLINPUT,
    };
    loop {
        // SAFETY: no handles are passed (count 0); the call only waits.
        unsafe { MsgWaitForMultipleObjects(0, std::ptr::null(), 0, CHANNEL_LOOK_MS, QS_ALLINPUT) };
        // SAFETY: MSG is plain data; PeekMessageW fills it for this thread's queue.
        let mut msg: MSG = unsafe { std::mem::zeroed() };
        while unsafe { PeekMessageW(&mut msg, std::ptr::null_mut(), 0, 0, PM_REMOVE) } != 0 {
            // SAFETY: `msg` was just filled by PeekMessageW.
            unsafe {
                TranslateMessage(&msg);
                DispatchMessageW(&msg);
            }
        }
        loop {
            match rx.try_recv() {
                Ok(msg) => {
                    if !apply(&mut tray, msg) {
                        return;
                    }
                }
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) => break,
            }
        }
    }
}

/// No menu watch on Windows: the window starts when an entry asks for it.
pub fn watch_menu(_windows: Windows) {}

/// Ctrl-C, Ctrl-Break, the console's close, logoff and shutdown quit as Quit does
/// (`sendledger::platform::shutdown_signal`). Closed windows are reaped at the next
/// open. Call inside the tokio runtime.
pub fn on_signals(_windows: Windows, to_desktop: mpsc::UnboundedSender<ToDesktop>) {
    tokio::spawn(async move {
        sendledger::platform::shutdown_signal().await;
        tracing::info!("{}: quitting", sendledger::platform::SHUTDOWN_SIGNALS);
        let _ = to_desktop.send(ToDesktop::Quit);
    });
}

/// Points stdout and stderr at `NUL`: whoever started this process may stop reading.
pub fn release_stdio() {
    use std::os::windows::io::IntoRawHandle;
    use windows_sys::Win32::System::Console::{SetStdHandle, STD_ERROR_HANDLE, STD_OUTPUT_HANDLE};
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("NUL") {
        // The handle stays open for the process's life: it is the new stdout and stderr.
        let handle = null.into_raw_handle();
        // SAFETY: SetStdHandle stores a handle this process holds open.
        unsafe {
            SetStdHandle(STD_OUTPUT_HANDLE, handle as _);
            SetStdHandle(STD_ERROR_HANDLE, handle as _);
        }
    }
}

/// Not known on Windows beyond the windows this tray started (see the module's note).
pub fn window_runs(_bus_name: &str) -> Option<u32> {
    None
}

/// A child this tray has not reaped and `try_wait` says runs is alive (Windows has no
/// zombie whose threads are still ending).
pub fn process_lives(_pid: u32) -> bool {
    true
}

/// Asks a window process this tray started to close: `taskkill /PID` (WM_CLOSE to its
/// windows; not /F, which is the kill that follows if it does not).
pub fn ask_to_close(c: &Child) {
    let _ = Command::new("taskkill")
        .args(["/PID", &c.id().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}
