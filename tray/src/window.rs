//! The queue window lives in its own process (`sendledger-app`, the Tauri binary), started
//! here when asked for and gone when its window closes, so this process links no web view
//! and holds none of its memory. The window reaches the owner through the bridge's client
//! routes like any client. Asking while a window runs starts a second `sendledger-app`,
//! which hands its arguments (the intent) to the first over D-Bus and exits.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
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
}

/// The window processes this tray started and has not reaped yet.
#[derive(Clone)]
pub struct Windows {
    profile: PathBuf,
    children: Arc<Mutex<Vec<Child>>>,
}

impl Windows {
    /// Windows on the profile at `profile`.
    pub fn new(profile: &Path) -> Windows {
        Windows {
            profile: profile.to_path_buf(),
            children: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Opens (or raises) the queue window showing `intent`. A window that cannot start is
    /// logged: the tray, Stop and the owner keep working.
    pub fn open(&self, intent: Intent) {
        let mut cmd = Command::new(window_binary());
        cmd.arg(format!("--profile={}", self.profile.display()))
            .args(intent.arg())
            // Started by the tray: the window does not start an owner of its own.
            .arg("--from-tray")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        match cmd.spawn() {
            Ok(child) => {
                tracing::info!(pid = child.id(), ?intent, "queue window started");
                let mut children = self.lock();
                children.retain_mut(|c| !matches!(c.try_wait(), Ok(Some(_))));
                children.push(child);
            }
            Err(e) => tracing::error!(
                binary = %window_binary().display(),
                "cannot start the queue window: {e}; is sendledger-app installed beside sendledger-tray?"
            ),
        }
    }

    /// Reaps every window process that has exited (called when one may have: SIGCHLD).
    pub fn reap(&self) {
        self.lock()
            .retain_mut(|c| !matches!(c.try_wait(), Ok(Some(_))));
    }

    /// Asks every window this tray started to close (SIGTERM), then reaps them: Quit. A
    /// window still there after [`END_WAIT_MS`] is killed, so Quit never hangs on one.
    pub fn end_all(&self) {
        let mut children = self.lock();
        for c in children.iter() {
            signal(c, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_millis(END_WAIT_MS);
        for mut c in children.drain(..) {
            while matches!(c.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if matches!(c.try_wait(), Ok(None)) {
                tracing::warn!(
                    pid = c.id(),
                    "a queue window did not close on SIGTERM: killed"
                );
                let _ = c.kill();
            }
            let _ = c.wait();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Child>> {
        self.children.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// How long Quit waits for the windows to close before it kills them, in ms.
pub const END_WAIT_MS: u64 = 2_000;

fn signal(c: &Child, sig: libc::c_int) {
    // SAFETY: kill(2) on a child not yet reaped: its pid cannot have been reused.
    unsafe {
        libc::kill(c.id() as libc::pid_t, sig);
    }
}

/// `SENDLEDGER_WINDOW_BINARY`, else `sendledger-app` beside this binary, else the bare name.
pub fn window_binary() -> PathBuf {
    sendledger::install::beside_this_binary(WINDOW_BIN, Some(WINDOW_BIN_ENV))
}
