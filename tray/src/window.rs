//! The queue window lives in its own process (`sendledger-app`, the Tauri binary), started
//! here when asked for and gone when its window closes, so this process links no web view
//! and holds none of its memory. The window reaches the owner through the bridge's client
//! routes like any client. Asking while a window runs starts a second `sendledger-app`,
//! which hands its arguments (the intent) to the first over D-Bus and exits.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

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

    /// Asks every window this tray started to close (SIGTERM), then reaps them: Quit.
    pub fn end_all(&self) {
        let mut children = self.lock();
        for c in children.iter() {
            // SAFETY: kill(2) on a child we have not reaped: its pid cannot be reused.
            unsafe {
                libc::kill(c.id() as libc::pid_t, libc::SIGTERM);
            }
        }
        for mut c in children.drain(..) {
            let _ = c.wait();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Child>> {
        self.children.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `SENDLEDGER_WINDOW_BINARY`, else `sendledger-app` beside this binary, else the bare name.
pub fn window_binary() -> PathBuf {
    sendledger::install::beside_this_binary(WINDOW_BIN, Some(WINDOW_BIN_ENV))
}
