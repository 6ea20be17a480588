//! A prepared window let go before anyone asked for it is ending: a show request racing
//! that end is refused (the caller starts the launch anew), never shown and then exited.
//! Its own test binary: the window's state is per process.

use sendledger_app::window;
use tauri::test::mock_builder;
use tauri::Manager;

#[test]
fn a_prepared_window_let_go_first_refuses_a_show_that_comes_after() {
    let app = mock_builder()
        .build(tauri::generate_context!())
        .expect("the mock app builds");
    assert!(window::end_unless_shown(), "not shown yet: it ends");
    assert!(window::ending());
    assert!(
        !window::open(app.handle()),
        "a show after the end is refused"
    );
    assert!(!window::shown());
    assert!(
        app.get_webview_window(window::LABEL).is_none(),
        "no window was built for a refused show"
    );
}
