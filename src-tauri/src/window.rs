//! The queue window. This process exists for it: it is created at start (or raised when a
//! second launch hands over), and when it closes the process exits, taking the web view
//! and everything WebKit mapped with it. The tray keeps running.

use std::sync::atomic::{AtomicBool, Ordering};
use tauri::{AppHandle, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};

/// The window's label (capabilities/queue-window.json grants its commands to it).
pub const LABEL: &str = "queue";

/// Environment read by GTK and WebKit when they start, and the value this window sets:
/// the queue is a list of rows and needs no GPU. GTK's own OpenGL probe (`GDK_GL`) maps
/// Mesa and LLVM before the window exists; WebKit's accelerated compositing makes its UI
/// process set up EGL before it starts the web process; Skia's GPU painting does the same
/// in the web process. Without them the web process starts ~200 ms sooner
/// (docs/performance.md, "The first paint").
pub const SOFTWARE_RENDERING: [(&str, &str); 3] = [
    ("GDK_GL", "disable"),
    ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
    ("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "1"),
];

/// Sets [`SOFTWARE_RENDERING`] for this process and the web processes WebKit starts from
/// it; a variable the person already set keeps their value. Call before GTK, WebKit or
/// any other thread starts.
pub fn render_in_software() {
    for (name, value) in SOFTWARE_RENDERING {
        if std::env::var_os(name).is_none() {
            std::env::set_var(name, value);
        }
    }
}

/// Set once the window was asked for: this process makes one window, ever (a second
/// request arriving before the first window is registered only raises it).
static MADE: AtomicBool = AtomicBool::new(false);

/// Shows and focuses the queue window, creating it if needed.
pub fn open<R: Runtime>(app: &AppHandle<R>) {
    if let Some(w) = app.get_webview_window(LABEL) {
        let _ = w.unminimize();
        let _ = w.show();
        let _ = w.set_focus();
        return;
    }
    if MADE.swap(true, Ordering::SeqCst) {
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
