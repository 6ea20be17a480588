//! The queue window. This process exists for it: it is created at start (or raised when a
//! second launch hands over), and when it closes the process exits, taking the web view
//! and everything WebKit mapped with it. The tray keeps running.

use tauri::{AppHandle, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};

/// The window's label (capabilities/queue-window.json grants its commands to it).
pub const LABEL: &str = "queue";

/// Shows and focuses the queue window, creating it if needed.
pub fn open<R: Runtime>(app: &AppHandle<R>) {
    if let Some(w) = app.get_webview_window(LABEL) {
        let _ = w.unminimize();
        let _ = w.show();
        let _ = w.set_focus();
        return;
    }
    let built = WebviewWindowBuilder::new(app, LABEL, WebviewUrl::App("index.html".into()))
        .title("sendledger — queue")
        .inner_size(920.0, 720.0)
        .min_inner_size(520.0, 420.0)
        .focused(true)
        .build();
    if let Err(e) = built {
        log::error!("cannot open the queue window: {e}");
    }
}
