//! A prepared window shown before its end came stays (the person asked for it); once it
//! closes, a request to show it is refused (the caller starts the launch anew). Its own
//! test binary: the window's state is per process.

use sendledger_app::window;
use tauri::test::mock_builder;
use tauri::Manager;

#[test]
fn a_prepared_window_shown_first_stays_and_once_closing_refuses_a_show() {
    let app = mock_builder()
        .build(tauri::generate_context!())
        .expect("the mock app builds");
    assert!(window::open(app.handle()));
    assert!(window::shown());
    assert!(app.get_webview_window(window::LABEL).is_some());
    assert!(!window::end_unless_shown(), "shown: it stays");
    assert!(!window::ending());
    window::mark_ending();
    assert!(
        !window::open(app.handle()),
        "a closing window refuses a show"
    );
}
