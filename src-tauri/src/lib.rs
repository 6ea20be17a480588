//! sendledger's queue window: its own process (`sendledger-app`), started from the desktop
//! menu, by a second launch, or by the tray (`sendledger-tray`, the profile's owner), and
//! gone when its window closes — so the tray process that owns the ledger links no web
//! view. The window reaches the owner only through the bridge's client routes.
//!
//! Code map: [`launch`] is how a start becomes the profile's one window or hands itself to
//! the running one (its state table is at its head); [`desk`] is the single seam onto the
//! owner (typed requests over the bridge); [`commands`] are the window's IPC (thin over
//! `desk`); [`connect`] the Connect panel; [`json`] the shapes the window sees; [`live`]
//! relays the owner's queue feed.

pub mod autostart;
pub mod commands;
pub mod connect;
pub mod desk;
pub mod json;
pub mod launch;
pub mod live;
pub mod save;

// The launch's parts under the paths the window's code and tests name them by.
pub use launch::{desktop, handover, launcher, prepared, window};

use desk::Desk;
use sendledger::profile::Profile;
use std::path::PathBuf;
use std::sync::Arc;
use tauri::{AppHandle, Manager, Runtime};

/// Exit code when the profile cannot be owned (as the CLI's "owned by another process").
pub const EXIT_NOT_OWNER: i32 = 3;
/// Exit code for a command line that cannot be understood (as the CLI's bad input).
pub const EXIT_USAGE: i32 = 2;

/// What the tray asked the window to show when it opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Confirm Resume (with who).
    Resume,
    /// A new pairing code for the extension.
    Pair,
}

/// The command line: `sendledger-app [--profile DIR] [--hidden] [--intent=resume|pair]
/// [--from-tray] [--prepared] [--help] [--version]`. Unknown arguments are ignored (a
/// desktop launcher or a WebDriver may add its own).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Args {
    /// Profile directory (else `SENDLEDGER_PROFILE`, else the platform data directory).
    pub profile: Option<PathBuf>,
    /// Make sure the tray runs, and open no window (what log-in's autostart runs).
    pub hidden: bool,
    /// What to show first.
    pub intent: Option<Ask>,
    /// Started by the tray, which owns the profile: no need to look for it.
    pub from_tray: bool,
    /// Build the window hidden and show it when the tray says so on stdin ([`prepared`]).
    pub prepared: bool,
    /// Passed by a launch that starts again by itself if this window is ending
    /// ([`desktop::PASSED_ARG`]): an ending window leaves it alone.
    pub passed: bool,
    /// Print [`USAGE`] and exit, opening nothing.
    pub help: bool,
    /// Print the version and exit, opening nothing.
    pub version: bool,
    /// What is wrong with the command line (a `--profile` with no directory, an intent
    /// nobody knows): said, and nothing is opened.
    pub problem: Option<String>,
}

/// What `sendledger-app --help` prints.
pub const USAGE: &str = "\
Usage: sendledger-app [--profile DIR] [--hidden] [--intent=resume|pair]

Opens sendledger's queue window, starting its tray (the profile's owner) first if it does
not run. Closing the window leaves the tray running.

  --profile DIR       the profile (default: $SENDLEDGER_PROFILE, else the data directory)
  --hidden            only make sure the tray runs; open no window (what log-in starts)
  --intent=resume     open the window on the Resume confirmation
  --intent=pair       open the window on a new pairing code for the extension
  --help, --version   print this or the version, and exit

The command line, its API and its doors: `sendledger --help`.
";

impl Args {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Args {
        let mut out = Args::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--hidden" => out.hidden = true,
                "--from-tray" => out.from_tray = true,
                "--prepared" => out.prepared = true,
                "--help" | "-h" => out.help = true,
                desktop::PASSED_ARG => out.passed = true,
                "--version" | "-V" => out.version = true,
                "--intent=resume" => out.intent = Some(Ask::Resume),
                "--intent=pair" => out.intent = Some(Ask::Pair),
                "--profile" => match it.next().filter(|d| !d.is_empty() && !d.starts_with("--")) {
                    Some(d) => out.profile = Some(PathBuf::from(d)),
                    None => out.problem = Some("--profile needs a directory after it".into()),
                },
                _ => {
                    if let Some(p) = a.strip_prefix("--profile=") {
                        out.profile = Some(PathBuf::from(p));
                    } else if let Some(i) = a.strip_prefix("--intent=") {
                        out.problem = Some(format!(
                            "--intent={i} is not an intent: use --intent=resume or --intent=pair"
                        ));
                    }
                }
            }
        }
        out
    }
}

/// Runs the window until it closes (or the owner quits); returns the exit code.
pub fn run() -> i32 {
    // Before any thread starts (docs/performance.md: the window's memory).
    sendledger::platform::few_heap_arenas();
    handover::keep_activation_token();
    let args = Args::parse(std::env::args().skip(1));
    if let Some(code) = answer_without_starting(&args) {
        return code;
    }
    let profile = match Profile::resolve(args.profile.as_deref()) {
        Ok(p) => p,
        Err(e) => return refuse(&e.to_string(), EXIT_NOT_OWNER),
    };
    if !args.from_tray {
        if let Err(no) = launcher::ensure_tray(&profile) {
            eprintln!("{}", no.message);
            return no.code;
        }
    }
    if args.hidden {
        return 0;
    }
    if let Some(code) = web_view_missing() {
        return code;
    }
    if let Some(code) = pass_to_running_window(&profile) {
        return code;
    }
    let app = with_plugins(tauri::Builder::default(), &args, &profile)
        .invoke_handler(commands::handler())
        .setup(move |app| {
            let desk = Arc::new(
                Desk::reach(profile, sendledger::person::os_user()).map_err(|r| r.message)?,
            );
            app.manage(desk.clone());
            take_early_intent(app.handle());
            let handle = app.handle().clone();
            live::follow(desk.clone(), move || handle.exit(0));
            if let Some(ask) = args.intent {
                take_intent(app.handle(), ask);
            }
            if args.prepared {
                prepared::await_show(app.handle());
            } else {
                window::open(app.handle());
            }
            Ok(())
        })
        .build(tauri::generate_context!());
    let app = match app {
        Ok(app) => app,
        // The profile's window was closing and dropped the hand-over unanswered.
        Err(tauri::Error::PluginInitialization(plugin, why)) if plugin == "single-instance" => {
            return handover::start_again(&why);
        }
        Err(e) => {
            eprintln!("sendledger could not open its window: {e}");
            return handover::EXIT_NO_WINDOW;
        }
    };
    app.run(on_run_event);
    0
}

/// The window's end (it closes, or `exit`): a launch handed over from now on is started
/// anew, and the single-instance name goes, so a later launch is the window itself.
fn on_run_event(app: &tauri::AppHandle, event: tauri::RunEvent) {
    use tauri::{RunEvent, WindowEvent};
    if let RunEvent::ExitRequested { .. }
    | RunEvent::WindowEvent {
        event: WindowEvent::CloseRequested { .. },
        ..
    } = event
    {
        window::mark_ending();
        tauri_plugin_single_instance::destroy(app);
    }
}

/// An intent handed over before setup reached the owner (`take_intent` keeps it here).
static EARLY_ASK: std::sync::Mutex<Option<Ask>> = std::sync::Mutex::new(None);

/// Shows `ask` in the window (a pairing code is asked of the owner first). Handed over
/// before setup reached the owner, it waits for setup ([`take_early_intent`]).
pub(crate) fn take_intent<R: Runtime>(app: &AppHandle<R>, ask: Ask) {
    let Some(desk) = app.try_state::<Arc<Desk>>() else {
        *EARLY_ASK.lock().unwrap_or_else(|p| p.into_inner()) = Some(ask);
        // Setup may have looked before the line above: look again.
        if app.try_state::<Arc<Desk>>().is_some() {
            take_early_intent(app);
        }
        return;
    };
    let desk = desk.inner().clone();
    match ask {
        Ask::Resume => desk.ask(json::Intent::Resume),
        Ask::Pair => {
            tauri::async_runtime::spawn(async move {
                match desk.pairing_code().await {
                    Ok(code) => desk.ask(json::Intent::Pair(code)),
                    Err(e) => log::error!("no pairing code: {}", e.message),
                }
            });
        }
    }
}

/// Shows an intent handed over before setup reached the owner, once (setup or the late
/// hand-over, whichever comes second).
fn take_early_intent<R: Runtime>(app: &AppHandle<R>) {
    let early = EARLY_ASK.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(ask) = early {
        take_intent(app, ask);
    }
}

/// The plugins, in order: single instance first (a second launch hands over its arguments
/// and exits), then the log and window-state plugins, and the log-in entry ([`autostart`]).
fn with_plugins(
    builder: tauri::Builder<tauri::Wry>,
    args: &Args,
    profile: &Profile,
) -> tauri::Builder<tauri::Wry> {
    let log = tauri_plugin_log::Builder::new()
        .targets([
            tauri_plugin_log::Target::new(tauri_plugin_log::TargetKind::LogDir { file_name: None }),
            tauri_plugin_log::Target::new(tauri_plugin_log::TargetKind::Stderr),
        ])
        .level(log::LevelFilter::Info)
        // zbus logs every D-Bus call it dispatches (a launch's hand-over) at Info.
        .level_for("zbus", log::LevelFilter::Warn)
        .build();
    // The profile a launch handed over here is for (the name is per profile), as a launch
    // started anew must name it: its own `--profile` may be relative to its directory.
    let dir = profile.dir().to_path_buf();
    // The log-in entry, quoted for the platform (autostart.rs); where the program's path
    // cannot be read, the settings say starting at log-in is not available.
    let builder = match std::env::current_exe()
        .map_err(|e| e.to_string())
        .and_then(|exe| {
            autostart::Autostart::new(&autostart_name(args, profile), &exe, &autostart_args(args))
        }) {
        Ok(entry) => builder.manage(entry),
        Err(why) => {
            log::warn!("start at log-in is unavailable: {why}");
            builder
        }
    };
    builder
        // First: a second launch on the same profile hands over its arguments here and exits
        // (one D-Bus name per profile: `Profile::window_bus_id`).
        .plugin(
            desktop::single_instance(tauri_plugin_single_instance::Builder::new(), profile)
                .callback(move |app, argv, _cwd| {
                    let again = Args::parse(argv.iter().skip(1).cloned());
                    if again.prepared {
                        // A tray prepared a window while this one runs: nothing was asked of it.
                        return;
                    }
                    if window::ending() {
                        // This window is closing: the launch gets a window of its own (a
                        // passed launch sees this window let go of the name, and starts
                        // again by itself).
                        if !again.hidden && !again.passed {
                            handover::relaunch(&argv, &dir);
                        }
                        return;
                    }
                    if let Some(ask) = again.intent {
                        take_intent(app, ask);
                    }
                    if !again.hidden {
                        window::open(app);
                    }
                })
                .build(),
        )
        .plugin(log)
        .plugin(
            tauri_plugin_window_state::Builder::default()
                .with_state_flags(
                    tauri_plugin_window_state::StateFlags::all()
                        - tauri_plugin_window_state::StateFlags::VISIBLE,
                )
                .build(),
        )
}

/// The log-in entry's name, one per profile as the window presents it: `sendledger` for the
/// default profile (`~/.config/autostart/sendledger.desktop`), `sendledger-<16 hex>` for
/// another (the hex of its single-instance name, `Profile::window_bus_id`).
fn autostart_name(args: &Args, profile: &Profile) -> String {
    match args.profile {
        None => "sendledger".to_string(),
        Some(_) => {
            let id = profile.window_bus_id();
            let hex = id.rsplit('_').next().unwrap_or(&id);
            format!("sendledger-{hex}")
        }
    }
}

/// What a log-in starts: the tray only, on the profile this window was started with.
fn autostart_args(args: &Args) -> Vec<String> {
    let mut out = vec!["--hidden".to_string()];
    if let Some(p) = &args.profile {
        out.push(format!("--profile={}", p.display()));
    }
    out
}

/// What a launch says where the window's web view cannot be loaded (the tray it started
/// runs on: custody does not need the window).
pub const NO_WEB_VIEW: &str = "sendledger cannot open its queue window: this computer has \
no web view for it (on Windows, the Microsoft Edge WebView2 Runtime, part of Windows 10 and \
11 unless removed). The tray still runs and keeps custody: its menu shows the queue's counts \
and has Stop. Install the WebView2 Runtime (Evergreen, from Microsoft: \
https://go.microsoft.com/fwlink/p/?LinkId=2124703), then open the queue again";

/// The window's web view (WebView2 on Windows, WebKitGTK on Linux) cannot be loaded: says
/// so ([`NO_WEB_VIEW`] and why, on stderr and where the desktop shows it) and returns
/// [`handover::EXIT_NO_WINDOW`]; `None`: the web view is there.
fn web_view_missing() -> Option<i32> {
    let why = tauri::webview_version().err()?;
    let sentence = format!("{NO_WEB_VIEW} ({why}).");
    eprintln!("{sentence}");
    desktop::tell(&sentence);
    Some(handover::EXIT_NO_WINDOW)
}

/// A window of this profile runs: this launch is passed to it, and the exit code is
/// returned; `None`: this launch is the window.
fn pass_to_running_window(profile: &Profile) -> Option<i32> {
    match desktop::pass(profile, std::env::args().collect()) {
        desktop::Passed::NoWindow => None,
        desktop::Passed::Taken => Some(0),
        desktop::Passed::Dropped(why) => Some(handover::start_again(&why)),
        desktop::Passed::Unanswered(pid) => Some(handover::unanswered(pid)),
    }
}

/// `--help`, `--version`, or a command line that cannot be understood: says so, and the
/// exit code is returned with nothing started; `None` for a launch.
fn answer_without_starting(args: &Args) -> Option<i32> {
    if args.help {
        print!("{USAGE}");
    } else if args.version {
        println!("sendledger-app {}", env!("CARGO_PKG_VERSION"));
    } else if let Some(problem) = &args.problem {
        eprintln!("sendledger-app: {problem}; nothing was opened (see sendledger-app --help)");
        return Some(EXIT_USAGE);
    } else {
        return None;
    }
    Some(0)
}

/// The profile cannot be had: say so on stderr and exit without touching anything.
fn refuse(message: &str, code: i32) -> i32 {
    eprintln!("sendledger could not start: {message}");
    code
}
