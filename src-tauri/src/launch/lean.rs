//! The queue window's web view, set up for one small document that never navigates (issue
//! 39: the window's memory, docs/performance.md). On Linux (WebKitGTK, through
//! `PlatformWebview::inner`): WebKit's caches sized for a document viewer
//! (`CacheModel::DocumentViewer`: no page cache, the smallest memory cache) and no
//! back/forward page cache. Elsewhere nothing (WebView2 sizes its own).

use tauri::{Runtime, WebviewWindow};

/// Applies the settings above to `window`'s web view, on the main thread once its web
/// view exists. A failure is logged and leaves WebKit's defaults: the window still works.
pub fn lean<R: Runtime>(window: &WebviewWindow<R>) {
    #[cfg(target_os = "linux")]
    if let Err(e) = window.with_webview(|w| linux::lean(&w.inner())) {
        log::warn!("the queue window's web view keeps WebKit's default caches: {e}");
    }
    #[cfg(not(target_os = "linux"))]
    let _ = window;
}

#[cfg(target_os = "linux")]
mod linux {
    use webkit2gtk::{CacheModel, SettingsExt, WebContextExt, WebViewExt};

    pub fn lean(view: &webkit2gtk::WebView) {
        if let Some(context) = view.context() {
            context.set_cache_model(CacheModel::DocumentViewer);
        }
        if let Some(settings) = WebViewExt::settings(view) {
            settings.set_enable_page_cache(false);
        }
    }
}
