//! The tray's log: stderr, and `sendledger-tray.log` in the app's log folder
//! (`$XDG_DATA_HOME/org.sendledger.app/logs/`, beside the window's log). Operation ids and
//! states only: a message's text never reaches a log. A log past [`MAX_LOG_BYTES`] is moved
//! to `sendledger-tray.log.old` at start, so the folder stays bounded.

use std::fs::{self, OpenOptions};
use std::path::PathBuf;
use std::sync::Mutex;
use tracing_subscriber::fmt::writer::MakeWriterExt;
use tracing_subscriber::EnvFilter;

/// Largest log kept as it is at start, in bytes (1 MiB).
pub const MAX_LOG_BYTES: u64 = 1 << 20;

/// The log folder: the Tauri app's (`<data dir>/org.sendledger.app/logs`).
pub fn log_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|d| d.data_local_dir().join("org.sendledger.app/logs"))
}

/// Installs the subscriber (`RUST_LOG` overrides the `info` level).
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let file = log_dir().and_then(|dir| {
        fs::create_dir_all(&dir).ok()?;
        let path = dir.join("sendledger-tray.log");
        if fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
            let _ = fs::rename(&path, dir.join("sendledger-tray.log.old"));
        }
        OpenOptions::new().create(true).append(true).open(path).ok()
    });
    // A log line that cannot be written is lost, never a panic in the owner (the default
    // reports the failure on stderr, which panics when stderr is what failed).
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .log_internal_errors(false);
    match file {
        Some(f) => builder
            .with_ansi(false)
            .with_writer(std::io::stderr.and(Mutex::new(f)))
            .init(),
        None => builder.with_writer(std::io::stderr).init(),
    }
}
