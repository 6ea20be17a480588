//! The queue window lives in its own process (`sendledger-app`, the Tauri binary), started
//! here when asked for and gone when its window closes, so this process links no web view
//! and holds none of its memory. The window reaches the owner through the bridge's client
//! routes like any client. Asking while a window runs starts a second `sendledger-app`,
//! which hands its arguments (the intent) to the first over D-Bus and exits.
//!
//! While the tray's menu is open ([`crate::menu_watch`]), a window can be *prepared*: a
//! `sendledger-app --prepared` whose window is built hidden, so WebKit starts while the
//! person reads the menu. *Open queue* (or Resume…, Pair extension…) then shows it with one
//! line on its stdin (`show`, `show resume`, `show pair`); a menu closed without them, or
//! Stop, ends it (its stdin closes: it exits unless something showed it meanwhile, such
//! as a launch from the desktop handing over to it). Nothing is prepared while a queue
//! window of the profile already runs (one this tray started, or [`desktop::window_runs`]): it
//! would hand over to that window and exit.

use crate::desktop;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Environment variable naming the window binary (tests, a development checkout);
/// otherwise `sendledger-app` beside this binary, else from the `PATH`.
pub const WINDOW_BIN_ENV: &str = "SENDLEDGER_WINDOW_BINARY";
const WINDOW_BIN: &str = "sendledger-app";

/// What the window is asked to show when it opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Just the queue.
    Queue,
    /// Ask the person to confirm Resume (with who).
    Resume,
    /// Show a new pairing code for the extension.
    Pair,
}

impl Intent {
    fn arg(self) -> Option<&'static str> {
        match self {
            Intent::Queue => None,
            Intent::Resume => Some("--intent=resume"),
            Intent::Pair => Some("--intent=pair"),
        }
    }

    /// The line that shows a prepared window with this intent.
    fn show_line(self) -> &'static [u8] {
        match self {
            Intent::Queue => b"show\n",
            Intent::Resume => b"show resume\n",
            Intent::Pair => b"show pair\n",
        }
    }
}

/// How long a menu may stay closed before the window prepared for it is ended, in ms:
/// hosts send the entry's click and the menu's close in either order.
pub const UNPREPARE_AFTER_MS: u64 = 1_500;
/// A prepared window older than this is replaced rather than reused, in ms: it ends itself
/// after 20 s (`sendledger-app`'s `PREPARED_MAX_MS`) if nobody asks for it.
pub const PREPARED_REUSE_MS: u64 = 10_000;

/// A window built hidden, waiting for its `show` line.
struct Prepared {
    pid: u32,
    stdin: ChildStdin,
    since: Instant,
    generation: u64,
}

/// How a prepared window is let go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Its stdin closes: it exits by itself unless it was shown (a desktop launch may have
    /// handed over to it).
    Close,
    /// SIGKILL at once (Quit, which ends every window anyway).
    Kill,
}

/// When the prepared window is let go after the menu closed, and whether a timer thread
/// is waiting for it (one at most, however many closes arrive).
#[derive(Default)]
struct Closing {
    due: Option<(u64, Instant)>,
    timer: bool,
}

/// The window processes this tray started and has not reaped yet.
#[derive(Clone)]
pub struct Windows {
    profile: PathBuf,
    children: Arc<Mutex<Vec<Child>>>,
    prepared: Arc<Mutex<Option<Prepared>>>,
    generations: Arc<AtomicU64>,
    closing: Arc<Mutex<Closing>>,
    /// The single-instance name a window of this profile holds: `Profile::window_bus_id`
    /// with tauri-plugin-single-instance's `.SingleInstance`.
    bus_name: String,
}

impl Windows {
    /// Windows on `profile`.
    pub fn new(profile: &sendledger::profile::Profile) -> Windows {
        let bus_name = format!("{}.SingleInstance", profile.window_bus_id());
        let profile = profile.dir();
        Windows {
            bus_name,
            profile: profile.to_path_buf(),
            children: Arc::new(Mutex::new(Vec::new())),
            prepared: Arc::new(Mutex::new(None)),
            generations: Arc::new(AtomicU64::new(0)),
            closing: Arc::new(Mutex::new(Closing::default())),
        }
    }

    /// Opens (or raises) the queue window showing `intent`: the prepared window if one
    /// waits, else a new process. A window that cannot start is logged: the tray, Stop and
    /// the owner keep working.
    pub fn open(&self, intent: Intent) {
        if let Some(mut p) = self.lock_prepared().take() {
            match p.stdin.write_all(intent.show_line()) {
                Ok(()) => {
                    tracing::info!(pid = p.pid, ?intent, "prepared queue window shown");
                    return;
                }
                // It ended (its own time bound): start one as if none had been prepared.
                Err(e) => tracing::info!(pid = p.pid, "the prepared window is gone ({e})"),
            }
        }
        let _ = self.start(intent.arg(), Stdio::null(), intent);
    }

    /// Starts a window hidden (the menu opened): WebKit starts now, *Open queue* only shows
    /// it. Does nothing while a recent prepared window waits, or a queue window runs.
    pub fn prepare(&self) {
        if self.lock_prepared().is_none() {
            if let Some(pid) = self
                .own_window()
                .or_else(|| desktop::window_runs(&self.bus_name))
            {
                tracing::info!(pid, "a queue window of this profile runs: nothing prepared");
                return;
            }
        }
        let mut prepared = self.lock_prepared();
        if let Some(p) = prepared
            .as_mut()
            .filter(|p| p.since.elapsed() < Duration::from_millis(PREPARED_REUSE_MS))
        {
            // The menu opened again: a close seen before no longer ends this window.
            p.generation = self.generations.fetch_add(1, Ordering::SeqCst) + 1;
            return;
        }
        *prepared = None; // an old one: its stdin closes, it exits
        if let Some((pid, Some(stdin))) =
            self.start(Some("--prepared"), Stdio::piped(), Intent::Queue)
        {
            *prepared = Some(Prepared {
                pid,
                stdin,
                since: Instant::now(),
                generation: self.generations.fetch_add(1, Ordering::SeqCst) + 1,
            });
        }
    }

    /// The pid of a window this tray started (shown, or starting to be) that still runs: not
    /// reaped, and not exiting (its main thread gone, the rest tearing WebKit down).
    fn own_window(&self) -> Option<u32> {
        self.lock().iter_mut().find_map(|c| {
            (matches!(c.try_wait(), Ok(None)) && desktop::process_lives(c.id())).then(|| c.id())
        })
    }

    /// Lets the prepared window go now.
    pub fn unprepare(&self, end: End) {
        let Some(p) = self.lock_prepared().take() else {
            return;
        };
        if end == End::Kill {
            // Through its `Child`, and only while it has not been reaped: a pid already
            // reaped may be another process's now.
            let mut children = self.lock();
            if let Some(c) = children.iter_mut().find(|c| c.id() == p.pid) {
                if matches!(c.try_wait(), Ok(None)) {
                    let _ = c.kill();
                }
            }
        }
        tracing::info!(pid = p.pid, ?end, "prepared queue window let go");
    }

    /// The menu closed: the prepared window is let go unless an entry shows it, or the menu
    /// opens again, within [`UNPREPARE_AFTER_MS`]. One timer thread at most, however many
    /// closes arrive.
    pub fn unprepare_after(&self) {
        let Some(generation) = self.lock_prepared().as_ref().map(|p| p.generation) else {
            return;
        };
        let mut closing = self.lock_closing();
        closing.due = Some((
            generation,
            Instant::now() + Duration::from_millis(UNPREPARE_AFTER_MS),
        ));
        if closing.timer {
            return; // the waiting timer takes the new deadline
        }
        let windows = self.clone();
        let spawned = std::thread::Builder::new()
            .name("menu-closed".into())
            .spawn(move || windows.close_when_due());
        match spawned {
            Ok(_) => closing.timer = true,
            Err(e) => tracing::warn!(
                "no timer for the closed menu ({e}): the prepared window ends itself within 20 s"
            ),
        }
    }

    /// The timer thread: waits for the due close, lets the window go if it is still the one
    /// the menu closed on, and ends when nothing is due.
    fn close_when_due(&self) {
        loop {
            let mut closing = self.lock_closing();
            let Some((generation, at)) = closing.due else {
                closing.timer = false;
                return;
            };
            let now = Instant::now();
            if now < at {
                drop(closing);
                std::thread::sleep(at - now);
                continue;
            }
            closing.due = None;
            drop(closing);
            let mut prepared = self.lock_prepared();
            if prepared
                .as_ref()
                .is_some_and(|p| p.generation == generation)
            {
                *prepared = None;
                tracing::info!("menu closed without the window: prepared window let go");
            } else {
                tracing::info!("the menu's close came due: the prepared window stays (shown, or the menu opened again)");
            }
        }
    }

    /// Spawns `sendledger-app` with `extra`; returns its pid, and its stdin when piped.
    fn start(
        &self,
        extra: Option<&str>,
        stdin: Stdio,
        intent: Intent,
    ) -> Option<(u32, Option<ChildStdin>)> {
        let mut cmd = Command::new(window_binary());
        cmd.arg(format!("--profile={}", self.profile.display()))
            .args(extra)
            // Started by the tray: the window does not start an owner of its own.
            .arg("--from-tray")
            .stdin(stdin)
            .stdout(Stdio::null());
        match cmd.spawn() {
            Ok(mut child) => {
                tracing::info!(pid = child.id(), ?extra, ?intent, "queue window started");
                let out = (child.id(), child.stdin.take());
                let mut children = self.lock();
                children.retain_mut(|c| !matches!(c.try_wait(), Ok(Some(_))));
                children.push(child);
                Some(out)
            }
            Err(e) => {
                tracing::error!(
                    binary = %window_binary().display(),
                    "cannot start the queue window: {e}; is sendledger-app installed beside sendledger-tray?"
                );
                None
            }
        }
    }

    /// Reaps every window process that has exited (called when one may have: SIGCHLD).
    pub fn reap(&self) {
        let mut prepared = self.lock_prepared();
        let mut children = self.lock();
        children.retain_mut(|c| !matches!(c.try_wait(), Ok(Some(_))));
        // A prepared window that exited (its own bound, a hand-over) is not waiting any more.
        if prepared
            .as_ref()
            .is_some_and(|p| !children.iter().any(|c| c.id() == p.pid))
        {
            *prepared = None;
        }
    }

    /// Asks every window this tray started to close (SIGTERM; on Windows `taskkill`), then reaps them: Quit. A
    /// window still there after [`END_WAIT_MS`] is killed, so Quit never hangs on one.
    pub fn end_all(&self) {
        *self.lock_prepared() = None;
        let mut children = self.lock();
        for c in children.iter() {
            desktop::ask_to_close(c);
        }
        let deadline = Instant::now() + Duration::from_millis(END_WAIT_MS);
        for mut c in children.drain(..) {
            while matches!(c.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if matches!(c.try_wait(), Ok(None)) {
                tracing::warn!(
                    pid = c.id(),
                    "a queue window did not close when asked: killed"
                );
                let _ = c.kill();
            }
            let _ = c.wait();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Child>> {
        self.children.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_prepared(&self) -> std::sync::MutexGuard<'_, Option<Prepared>> {
        self.prepared.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_closing(&self) -> std::sync::MutexGuard<'_, Closing> {
        self.closing.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// How long Quit waits for the windows to close before it kills them, in ms.
pub const END_WAIT_MS: u64 = 2_000;

/// `SENDLEDGER_WINDOW_BINARY`, else `sendledger-app` beside this binary, else the bare name.
pub fn window_binary() -> PathBuf {
    sendledger::install::beside_this_binary(WINDOW_BIN, Some(WINDOW_BIN_ENV))
}
