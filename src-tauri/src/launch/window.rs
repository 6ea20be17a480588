//! The queue window. This process exists for it: it is created at start (or raised when a
//! second launch hands over), and when it closes the process exits, taking the web view
//! and everything WebKit mapped with it. The tray keeps running.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use tauri::{AppHandle, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};

/// The window's label (capabilities/queue-window.json grants its commands to it).
pub const LABEL: &str = "queue";

/// Set once the window was asked for: this process makes one window, ever (a second
/// request arriving before the first window is registered only raises it).
static MADE: AtomicBool = AtomicBool::new(false);
/// Where the window stands: [`HIDDEN`] (a prepared window not asked for yet), [`SHOWN`],
/// or [`ENDING`] (closing, or a prepared window let go: nothing shows it any more).
static STATE: AtomicU8 = AtomicU8::new(HIDDEN);
const HIDDEN: u8 = 0;
const SHOWN: u8 = 1;
const ENDING: u8 = 2;

/// Whether the window was shown, by any request, and is not ending.
pub fn shown() -> bool {
    STATE.load(Ordering::SeqCst) == SHOWN
}

/// Whether this process is ending: a request to show the window must go to a new one.
pub fn ending() -> bool {
    STATE.load(Ordering::SeqCst) == ENDING
}

/// The window is closing or the process exiting: from now on [`open`] refuses.
pub fn mark_ending() {
    STATE.store(ENDING, Ordering::SeqCst);
}

/// A prepared window nobody asked for: marks this process ending unless the window was
/// shown meanwhile, in one step, so a request racing the end is either shown or refused
/// (and started anew), never shown and then exited. Returns whether it is ending.
pub fn end_unless_shown() -> bool {
    STATE
        .compare_exchange(HIDDEN, ENDING, Ordering::SeqCst, Ordering::SeqCst)
        .map_or_else(|now| now == ENDING, |_| true)
}

/// Shows and focuses the queue window, creating it if needed. Returns false, doing
/// nothing, when this process is ending ([`ending`]).
pub fn open<R: Runtime>(app: &AppHandle<R>) -> bool {
    if STATE
        .compare_exchange(HIDDEN, SHOWN, Ordering::SeqCst, Ordering::SeqCst)
        .is_err_and(|now| now == ENDING)
    {
        return false;
    }
    if let Some(w) = app.get_webview_window(LABEL) {
        let _ = w.unminimize();
        let _ = w.show();
        let _ = w.set_focus();
        return true;
    }
    build(app, true);
    true
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
    if let Ok(w) = &built {
        super::lean::lean(w);
    }
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
