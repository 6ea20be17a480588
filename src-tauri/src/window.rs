//! The queue window. This process exists for it: it is created at start (or raised when a
//! second launch hands over), and when it closes the process exits, taking the web view
//! and everything WebKit mapped with it. The tray keeps running.

use std::sync::atomic::{AtomicBool, Ordering};
use tauri::{AppHandle, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};

/// The window's label (capabilities/queue-window.json grants its commands to it).
pub const LABEL: &str = "queue";

/// Set once the window was asked for: this process makes one window, ever (a second
/// request arriving before the first window is registered only raises it).
static MADE: AtomicBool = AtomicBool::new(false);
/// Set once the window was shown (a prepared window only when it is asked for).
static SHOWN: AtomicBool = AtomicBool::new(false);

/// Whether the window was shown, by any request.
pub fn shown() -> bool {
    SHOWN.load(Ordering::SeqCst)
}

/// Shows and focuses the queue window, creating it if needed.
pub fn open<R: Runtime>(app: &AppHandle<R>) {
    SHOWN.store(true, Ordering::SeqCst);
    if let Some(w) = app.get_webview_window(LABEL) {
        let _ = w.unminimize();
        let _ = w.show();
        let _ = w.set_focus();
        return;
    }
    build(app, true);
}

/// Creates the queue window without showing it: the web view starts WebKit's processes
/// and loads the queue, and [`open`] later only maps it (a prepared window, see
/// [`crate::prepared`]).
pub fn prepare<R: Runtime>(app: &AppHandle<R>) {
    build(app, false);
}

fn build<R: Runtime>(app: &AppHandle<R>, visible: bool) {
    if MADE.swap(true, Ordering::SeqCst) {
        return;
    }
    let built = WebviewWindowBuilder::new(app, LABEL, WebviewUrl::App("index.html".into()))
        .title("sendledger — queue")
        .inner_size(920.0, 720.0)
        .min_inner_size(520.0, 420.0)
        .visible(visible)
        .focused(visible)
        .build();
    match built {
        // Asked for while it was being built hidden ([`open`] set SHOWN, found no window
        // yet and left): shown now. One of the two always sees the other.
        Ok(w) if !visible && shown() => {
            let _ = w.show();
            let _ = w.set_focus();
        }
        Ok(_) => {}
        Err(e) => log::error!("cannot open the queue window: {e}"),
    }
}
