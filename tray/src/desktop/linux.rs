//! The Linux desktop: GTK's main loop (libayatana-appindicator's icon and menu), the menu
//! watch that prepares the window while the menu is open ([`menu_watch`]), Unix signals,
//! the session bus's view of a running window, `/proc` for a process's liveness.

#[path = "menu_watch.rs"]
pub mod menu_watch;

use super::{apply, ToDesktop};
use crate::menu::Tray;
use crate::window::Windows;
use menu_watch::MenuSeen;
use std::process::Child;
use tokio::sync::mpsc;

/// GTK starts (no OpenGL probe: no web view runs in this process, and probing maps Mesa
/// and libLLVM — tens of MB, docs/performance.md). Call before any thread starts.
pub fn init() -> Result<(), String> {
    std::env::set_var("GDK_GL", "disable");
    gtk::init().map_err(|e| e.to_string())
}

/// Runs GTK's main loop until Quit: counts go to the tray, Quit ends the loop.
pub fn run(mut tray: Tray, mut rx: mpsc::UnboundedReceiver<ToDesktop>) {
    gtk::glib::MainContext::default().spawn_local(async move {
        while let Some(msg) = rx.recv().await {
            if !apply(&mut tray, msg) {
                break;
            }
        }
        gtk::main_quit();
    });
    gtk::main();
}

/// A window is prepared when the host opens the menu (or the XEmbed icon pops it up), and
/// let go when it closes without one of the entries that show it (docs/app.md). The bus's
/// thread only hands what it saw to one thread of ours, which takes it in order
/// (spawning a process is no work for it).
pub fn watch_menu(windows: Windows) {
    let (seen, menu) = std::sync::mpsc::channel();
    let popped = seen.clone();
    menu_watch::watch_popups(move |what| {
        let _ = popped.send(what);
    });
    menu_watch::watch(move |what| {
        let _ = seen.send(what);
    });
    std::thread::Builder::new()
        .name("menu-watch".into())
        .spawn(move || {
            for what in menu {
                match what {
                    MenuSeen::Opened => windows.prepare(),
                    MenuSeen::Closed => windows.unprepare_after(),
                }
            }
        })
        .expect("a thread for the menu watch");
}

/// SIGTERM (log-out, `kill`), SIGINT (Ctrl-C) and SIGHUP (the terminal closed) quit as
/// Quit does; SIGCHLD reaps closed windows. Call inside the tokio runtime.
pub fn on_signals(windows: Windows, to_desktop: mpsc::UnboundedSender<ToDesktop>) {
    use tokio::signal::unix::{signal, SignalKind};
    let quits = [
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::interrupt(), "SIGINT"),
        (SignalKind::hangup(), "SIGHUP"),
    ];
    for (kind, name) in quits {
        match signal(kind) {
            Ok(mut sig) => {
                let to_desktop = to_desktop.clone();
                tokio::spawn(async move {
                    sig.recv().await;
                    tracing::info!("{name}: quitting");
                    let _ = to_desktop.send(ToDesktop::Quit);
                });
            }
            Err(e) => tracing::warn!("no {name} handler: {e}"),
        }
    }
    match signal(SignalKind::child()) {
        Ok(mut child) => {
            tokio::spawn(async move {
                while child.recv().await.is_some() {
                    windows.reap();
                }
            });
        }
        Err(e) => {
            tracing::warn!("no SIGCHLD handler: closed windows are reaped at the next open: {e}")
        }
    }
}

/// Points stdout and stderr at /dev/null: whoever started this process may stop reading
/// (its pipe closing must not end the tray).
pub fn release_stdio() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        use std::os::fd::AsRawFd;
        // SAFETY: dup2 onto the standard descriptors; `null` stays open until both are made.
        unsafe {
            libc::dup2(null.as_raw_fd(), 1);
            libc::dup2(null.as_raw_fd(), 2);
        }
    }
}

/// Whether the queue window whose single-instance name is `bus_name` runs in this desktop
/// session: the name has an owner whose process still lives (a window that has just died
/// may hold the name until the bus notices): its pid. Asked of the session bus within 1 s;
/// `None` when the bus cannot say.
pub fn window_runs(bus_name: &str) -> Option<u32> {
    use gtk::gio;
    let bus = gio::bus_get_sync(gio::BusType::Session, gio::Cancellable::NONE).ok()?;
    bus.call_sync(
        Some("org.freedesktop.DBus"),
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "GetConnectionUnixProcessID",
        Some(&(bus_name,).into()),
        Some(gtk::glib::VariantTy::new("(u)").expect("a valid type")),
        gio::DBusCallFlags::NONE,
        1_000,
        gio::Cancellable::NONE,
    )
    .ok()
    .and_then(|v| v.child_value(0).get::<u32>())
    .filter(|&pid| process_lives(pid))
}

/// Whether process `pid` exists and has not exited, from `/proc/PID/stat`: a zombie has,
/// and so has a process whose main thread is a zombie while its other threads end.
pub fn process_lives(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.chars().next());
        !matches!(state, None | Some('Z' | 'X'))
    })
}

/// Asks a window process this tray started to close (SIGTERM).
pub fn ask_to_close(c: &Child) {
    // SAFETY: kill(2) on a child not yet reaped: its pid cannot have been reused.
    unsafe {
        libc::kill(c.id() as libc::pid_t, libc::SIGTERM);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::time::{Duration, Instant};

    #[test]
    fn a_window_process_that_exited_does_not_count_as_running_even_before_it_is_reaped() {
        assert!(process_lives(std::process::id()));
        let mut child = Command::new("true").spawn().expect("true runs");
        let pid = child.id();
        // Exited, not reaped: a zombie, as a window is until the tray's SIGCHLD reaps it.
        let stat = format!("/proc/{pid}/stat");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::fs::read_to_string(&stat).is_ok_and(|s| !s.contains(") Z")) {
            assert!(Instant::now() < deadline, "`true` did not exit");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!process_lives(pid), "a zombie is not a running window");
        child.wait().expect("reaped");
        assert!(!process_lives(pid), "a reaped pid is not a running window");
    }
}
