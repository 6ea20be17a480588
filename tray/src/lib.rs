//! sendledger's tray process: the owner runtime (ledger + loopback bridge, the same as
//! `sendledger serve`: the profile's single writer), the tray icon with Stop, the
//! stale-uncertain notifications, and the queue window's process when asked for. It links
//! no web view: the window is `sendledger-app`, a process of its own that exits when its
//! window closes ([`window`]).
//!
//! Threads: the desktop's event loop on the main thread (GTK's on Linux, a Win32 message
//! loop on Windows: [`desktop`]; the tray icon and its menu, [`menu`]); the owner and
//! everything that waits on the ledger on a tokio runtime. They meet in one channel: tray
//! clicks go to tokio, counts and Quit go to the desktop thread.
//!
//! Start-up handshake (`--announce`, what `sendledger-app` uses when it starts the tray):
//! one line `ready` on stdout once the owner and the tray are up, then stdout and stderr
//! are let go; a refusal is one line on stderr and exit code [`EXIT_NOT_OWNER`].

pub mod desktop;
pub mod logging;
pub mod menu;
pub mod notifications;
pub mod settings_watch;
pub mod status;
pub mod window;

use desktop::ToDesktop;
use menu::{Click, Tray};
use sendledger::api::queue::QueueStatus;
use sendledger::api::{Api, Request};
use sendledger::clock::SystemClock;
use sendledger::ledger::Bounds;
use sendledger::owner::{Owner, OwnerConfig};
use sendledger::profile::Profile;
use settings_watch::SettingsWatch;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc;
use window::{End, Intent, Windows};

/// Exit code when the profile cannot be owned (as the CLI's "owned by another process").
pub const EXIT_NOT_OWNER: i32 = 3;
/// Exit code when there is no desktop to show a tray on.
pub const EXIT_NO_DISPLAY: i32 = 4;

/// The command line: `sendledger-tray [--profile DIR] [--announce] [--help] [--version]`.
/// Unknown arguments are ignored.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Args {
    /// Profile directory (else `SENDLEDGER_PROFILE`, else the platform data directory).
    pub profile: Option<PathBuf>,
    /// Say `ready` on stdout once up, then let stdout and stderr go (see the crate docs).
    pub announce: bool,
    /// Print what this program is, or its version, and exit: nothing starts.
    pub help: bool,
    pub version: bool,
}

impl Args {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Args {
        let mut out = Args::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            if a == "--announce" {
                out.announce = true;
            } else if a == "--help" || a == "-h" {
                out.help = true;
            } else if a == "--version" || a == "-V" {
                out.version = true;
            } else if a == "--profile" {
                out.profile = it.next().map(PathBuf::from);
            } else if let Some(p) = a.strip_prefix("--profile=") {
                out.profile = Some(PathBuf::from(p));
            }
        }
        out
    }
}

/// What `sendledger-tray --help` prints.
const TRAY_HELP: &str = "Usage: sendledger-tray [--profile DIR]

sendledger's tray: it owns the profile (the ledger and its loopback bridge) and shows the
tray icon, Stop and notifications. Started by sendledger-app, which you launch instead.";

/// `--help` or `--version`: prints it; nothing starts.
fn print_help(args: &Args) -> i32 {
    if args.help {
        println!("{TRAY_HELP}");
    } else {
        println!("sendledger-tray {}", env!("CARGO_PKG_VERSION"));
    }
    0
}

/// Runs the tray until Quit or SIGTERM; returns the exit code.
pub fn run() -> i32 {
    // Before any thread starts (docs/performance.md: the tray's heap).
    sendledger::platform::few_heap_arenas();
    let args = Args::parse(std::env::args().skip(1));
    if args.help || args.version {
        return print_help(&args);
    }
    logging::init();
    if let Err(e) = desktop::init() {
        return refuse(
            EXIT_NO_DISPLAY,
            &format!("no desktop to show the tray on ({e}): start it in your desktop session, or use `sendledger serve` without one"),
        );
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("owner")
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return refuse(1, &format!("cannot start its runtime: {e}")),
    };
    let (owner, profile) = match rt.block_on(start_owner(&args)) {
        Ok(o) => o,
        Err(message) if another_tray_owns(&args) => {
            // Two launches at once: the other tray serves this profile; nothing to say.
            tracing::info!("another sendledger-tray owns this profile: {message}");
            eprintln!("sendledger could not start: {message}");
            return EXIT_NOT_OWNER;
        }
        Err(message) => return refuse(EXIT_NOT_OWNER, &message),
    };
    let api = owner.api();
    let status = rt.block_on(api.queue_status()).unwrap_or_default();
    let windows = Windows::new(&profile);
    let (to_desktop, from_tokio) = mpsc::unbounded_channel();
    let (clicks, clicked) = mpsc::unbounded_channel();
    let tray = match Tray::build(&status, move |c| {
        let _ = clicks.send(c);
    }) {
        Ok(t) => t,
        Err(e) => {
            rt.block_on(owner.shutdown());
            return refuse(EXIT_NO_DISPLAY, &e.to_string());
        }
    };
    desktop::watch_menu(windows.clone());
    {
        let _guard = rt.enter();
        follow_status(api.clone(), status, to_desktop.clone());
        on_clicks(api.clone(), windows.clone(), clicked, to_desktop.clone());
        notifications::spawn_sweep(api.clone(), SettingsWatch::start(&profile), windows.clone());
        desktop::on_signals(windows.clone(), to_desktop);
    }
    tracing::info!(profile = %profile.dir().display(), "tray ready");
    if args.announce {
        announce_ready();
    }
    desktop::run(tray, from_tokio);
    tracing::info!("quitting");
    windows.end_all();
    rt.block_on(owner.shutdown());
    0
}

async fn start_owner(args: &Args) -> Result<(Owner, Profile), String> {
    let profile = Profile::resolve(args.profile.as_deref()).map_err(|e| e.to_string())?;
    let cfg = OwnerConfig {
        profile: profile.clone(),
        port: None,
        bounds: Bounds::default(),
        clock: Arc::new(SystemClock),
    };
    let owner = Owner::start(cfg).await.map_err(|e| e.to_string())?;
    Ok((owner, profile))
}

/// Whether the profile is owned by another tray (not `sendledger serve`, say).
fn another_tray_owns(args: &Args) -> bool {
    Profile::resolve(args.profile.as_deref())
        .ok()
        .and_then(|p| p.current_owner())
        .is_some_and(|o| o.pid != std::process::id() && o.runs_program("sendledger-tray"))
}

/// Re-reads counts and gate after every committed write (a Stop with nothing queued
/// writes no audit event, yet the gate changed) and shows them when they changed.
fn follow_status(api: Api, mut shown: QueueStatus, to_desktop: mpsc::UnboundedSender<ToDesktop>) {
    let mut writes = api.watch_writes();
    tokio::spawn(async move {
        while writes.changed().await.is_ok() {
            writes.borrow_and_update();
            match api.queue_status().await {
                Ok(now) if now != shown => {
                    shown = now.clone();
                    if to_desktop.send(ToDesktop::Show(Box::new(now))).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::error!("cannot read the counts for the tray: {e}"),
            }
        }
    });
}

/// What each tray entry does. Stop is applied at once, with no dialog: the brake.
fn on_clicks(
    api: Api,
    windows: Windows,
    mut clicked: mpsc::UnboundedReceiver<Click>,
    to_desktop: mpsc::UnboundedSender<ToDesktop>,
) {
    tokio::spawn(async move {
        while let Some(click) = clicked.recv().await {
            match click {
                Click::Stop => {
                    windows.unprepare(End::Close);
                    let by = sendledger::person::os_user();
                    match api.apply(Request::Stop { by }).await {
                        Ok(_) => tracing::info!("stopped from the tray"),
                        Err(e) => tracing::error!("Stop from the tray failed: {e}"),
                    }
                }
                Click::Open => windows.open(Intent::Queue),
                Click::Resume => windows.open(Intent::Resume),
                Click::Pair => windows.open(Intent::Pair),
                Click::Quit => {
                    windows.unprepare(End::Kill);
                    let _ = to_desktop.send(ToDesktop::Quit);
                }
            }
        }
    });
}

/// The handshake's `ready`, then stdout and stderr point nowhere (`/dev/null`, `NUL`):
/// whoever started this process may stop reading (its pipe closing must not end the tray).
fn announce_ready() {
    use std::io::Write;
    let mut out = std::io::stdout();
    let _ = writeln!(out, "ready").and_then(|_| out.flush());
    desktop::release_stdio();
}

/// The profile cannot be owned (another owner runs, the ledger is damaged…) or no tray
/// can be shown: says so on stderr, in the log and as a notification, and returns `code`
/// without touching anything.
fn refuse(code: i32, message: &str) -> i32 {
    let text = format!("sendledger could not start: {message}");
    tracing::error!("{text}");
    eprintln!("{text}");
    let body = message.to_string();
    let shown = std::thread::spawn(move || {
        notify_rust::Notification::new()
            .appname("sendledger")
            .summary("sendledger could not start")
            .body(&body)
            .icon("dialog-error")
            .show()
            .is_ok()
    });
    let _ = shown.join();
    code
}
