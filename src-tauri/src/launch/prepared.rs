//! A window prepared while the tray's menu is open (`sendledger-app --prepared`, started by
//! the tray when a StatusNotifier host asks for the menu): the process builds the queue
//! window hidden, so WebKit's processes start and the page loads while the person is still
//! reading the menu, and shows it when the tray writes one line on its stdin:
//!
//! - `show`, `show resume`, `show pair` (`\n`-terminated): show the window, with that intent;
//! - end of input (the menu closed without *Open queue*, the tray quit or died): exit.
//!
//! A prepared window that is not asked for within [`PREPARED_MAX_MS`] exits too, whatever
//! the tray does; one a second launch showed in the meantime (the single-instance hand-over)
//! stays. At most [`STDIN_MAX_BYTES`] are read.

use crate::window;
use crate::Ask;
use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc;
use std::time::Duration;
use tauri::{AppHandle, Runtime};

/// How long a prepared window waits to be shown before its process exits, in ms.
pub const PREPARED_MAX_MS: u64 = 20_000;
/// The most this process reads of its stdin, in bytes (the tray writes one short line).
pub const STDIN_MAX_BYTES: u64 = 4_096;

/// What a line on stdin asks: `Some(intent)` to show the window (`None`: just the queue).
pub fn parse(line: &str) -> Option<Option<Ask>> {
    match line.trim_end_matches(['\n', '\r']) {
        "show" => Some(None),
        "show resume" => Some(Some(Ask::Resume)),
        "show pair" => Some(Some(Ask::Pair)),
        _ => None,
    }
}

/// Prepares the window, then shows it when the tray asks, or exits when it will not.
pub fn await_show<R: Runtime>(app: &AppHandle<R>) {
    window::prepare(app);
    let (asked, answer) = mpsc::channel();
    std::thread::Builder::new()
        .name("prepared-stdin".into())
        .spawn(move || {
            let mut lines = BufReader::new(std::io::stdin().take(STDIN_MAX_BYTES));
            let mut line = String::new();
            loop {
                line.clear();
                match lines.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => match parse(&line) {
                        Some(ask) => {
                            let _ = asked.send(ask);
                            return;
                        }
                        None => log::warn!("prepared window: ignored a line it does not know"),
                    },
                }
            }
            // Dropping `asked` says: not asked for.
        })
        .expect("a thread for the prepared window's stdin");
    let app = app.clone();
    std::thread::Builder::new()
        .name("prepared".into())
        .spawn(
            move || match answer.recv_timeout(Duration::from_millis(PREPARED_MAX_MS)) {
                Ok(ask) => {
                    let handle = app.clone();
                    let _ = app.run_on_main_thread(move || {
                        if let Some(ask) = ask {
                            crate::take_intent(&handle, ask);
                        }
                        window::open(&handle);
                    });
                }
                // One step decides: shown (it stays), or ending (a launch racing this end
                // is started anew, lib.rs), never shown and then exited.
                Err(_) if !window::end_unless_shown() => {
                    log::info!("the prepared window was let go after it was shown: it stays");
                }
                Err(_) => {
                    // `exit` releases the profile's single-instance name first (lib.rs).
                    log::info!("the prepared window was not asked for: exiting");
                    app.exit(0);
                }
            },
        )
        .expect("a thread for the prepared window");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_three_show_lines_show_a_prepared_window() {
        assert_eq!(parse("show\n"), Some(None));
        assert_eq!(parse("show resume\n"), Some(Some(Ask::Resume)));
        assert_eq!(parse("show pair\r\n"), Some(Some(Ask::Pair)));
        for other in ["", "\n", "show stop\n", "SHOW\n", " show\n", "showx\n"] {
            assert_eq!(parse(other), None, "{other:?}");
        }
    }
}
