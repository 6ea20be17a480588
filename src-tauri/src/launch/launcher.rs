//! Before any window: makes sure the profile's owner — the tray process,
//! `sendledger-tray` — runs. When none does, starts it in a process group of its own (so
//! it outlives this window) with `--announce`, and waits for its `ready` line; a refusal
//! (another owner, a damaged ledger, no desktop) is relayed as it is, with its exit code.

use sendledger::profile::discovery;
use sendledger::profile::Profile;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Environment variable naming the tray binary (tests, a development checkout);
/// otherwise `sendledger-tray` beside this binary, else from the `PATH`.
pub const TRAY_BIN_ENV: &str = "SENDLEDGER_TRAY_BINARY";
const TRAY_BIN: &str = "sendledger-tray";

/// Why the tray could not be had: its message and the exit code to leave with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoTray {
    pub message: String,
    pub code: i32,
}

/// Whether the owner of `profile` is a tray process (not `sendledger serve`, say).
fn tray_owns(profile: &Profile) -> bool {
    discovery::live_bridge(profile).is_some()
        && profile
            .current_owner()
            .is_some_and(|o| o.runs_program(TRAY_BIN))
}

/// How long a launch waits for the tray it started to say `ready`, in ms.
pub const READY_WAIT_MS: u64 = 30_000;
/// The most read of the tray's `ready` line, and of what it said before refusing, in bytes.
const MAX_LINE_BYTES: u64 = 64;
const MAX_SAID_BYTES: u64 = 64 << 10;

/// How long a launch waits for a tray another launch started to be ready, in ms.
pub const OTHER_TRAY_WAIT_MS: u64 = 10_000;

/// Whether the profile's lock is held by a tray that becomes ready (its `bridge.json`)
/// within [`OTHER_TRAY_WAIT_MS`]: a bounded look every 20 ms, at start only.
fn another_tray_starting(profile: &Profile) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(OTHER_TRAY_WAIT_MS);
    loop {
        if tray_owns(profile) {
            return true;
        }
        let locked_by_tray = profile
            .current_owner()
            .is_some_and(|o| o.runs_program(TRAY_BIN));
        if !locked_by_tray || std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Makes sure a tray owns `profile`, starting one when none runs. Another kind of owner
/// (`sendledger serve`) is not taken over: the tray started then refuses, naming it.
pub fn ensure_tray(profile: &Profile) -> Result<(), NoTray> {
    if tray_owns(profile) {
        return Ok(());
    }
    let mut child = crate::desktop::outlive_this_process(
        Command::new(tray_binary())
            .arg(format!("--profile={}", profile.dir().display()))
            .arg("--announce")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .spawn()
        .map_err(|e| NoTray {
            message: format!(
                "sendledger could not start its tray ({}): {e}; is sendledger-tray installed beside sendledger-app?",
                tray_binary().display()
            ),
            code: 1,
        })?;
    let out = child.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(out.take(MAX_LINE_BYTES)).read_line(&mut line);
        let _ = tx.send(line);
    });
    match rx.recv_timeout(Duration::from_millis(READY_WAIT_MS)) {
        Ok(line) if line.trim() == "ready" => return Ok(()),
        Ok(_) => {}
        Err(_) => {
            return Err(NoTray {
                message: format!(
                    "sendledger could not start: its tray (pid {}) did not say it was ready within {} s; it may still be starting (a large ledger's recovery): try again shortly, or see ~/.local/share/org.sendledger.app/logs/sendledger-tray.log",
                    child.id(),
                    READY_WAIT_MS / 1000
                ),
                code: 1,
            })
        }
    }
    let mut said = String::new();
    if let Some(err) = child.stderr.take() {
        let _ = err.take(MAX_SAID_BYTES).read_to_string(&mut said);
    }
    let code = child.wait().ok().and_then(|s| s.code()).unwrap_or(1);
    // Two launches at once each start a tray: the one that lost waits for the other's.
    if another_tray_starting(profile) {
        return Ok(());
    }
    let refusal = said
        .lines()
        .rfind(|l| l.starts_with("sendledger could not start"));
    let message = match refusal {
        Some(line) => line.to_string(),
        None => format!(
            "sendledger could not start: its tray stopped before it was ready (exit code {code}): {}",
            said.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("it said nothing; see ~/.local/share/org.sendledger.app/logs/sendledger-tray.log")
        ),
    };
    Err(NoTray {
        message,
        code: if code == 0 { 1 } else { code },
    })
}

/// `SENDLEDGER_TRAY_BINARY`, else `sendledger-tray` beside this binary, else the bare name.
pub fn tray_binary() -> PathBuf {
    sendledger::install::beside_this_binary(TRAY_BIN, Some(TRAY_BIN_ENV))
}
