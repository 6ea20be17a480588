//! The queue window. It is created when asked for (tray, second launch, notification) and
//! destroyed when closed: the app stays in the tray, and an idle app holds no web view.

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
