//! sendledger's tray app: one process that embeds the owner runtime (ledger + loopback
//! bridge, the same as `sendledger serve`), with a tray icon, a queue window and
//! stale-uncertain notifications.
//!
//! Code map: [`desk`] is the single seam onto the core; [`commands`] are the window's IPC
//! (thin over `desk`); [`connect`] the Connect panel (base URL, keys, MCP entry); [`json`] the shapes the window sees; [`tray`], [`window`],
//! [`live`] (pushed updates) and [`notifications`] (the sweep) are the desktop parts.

pub mod commands;
pub mod connect;
pub mod desk;
pub mod json;
pub mod live;
pub mod notifications;
pub mod settings;
pub mod tray;
pub mod window;

use desk::Desk;
use sendledger::clock::SystemClock;
use sendledger::ledger::Bounds;
use sendledger::owner::OwnerConfig;
use sendledger::profile::Profile;
use std::path::PathBuf;
use std::sync::Arc;
use tauri::{Manager, RunEvent, WindowEvent};

/// Exit code when the profile cannot be owned (as the CLI's "owned by another process").
pub const EXIT_NOT_OWNER: i32 = 3;

/// The command line: `sendledger-app [--profile DIR] [--hidden]`. Unknown arguments are
/// ignored (a desktop launcher or a WebDriver may add its own).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Args {
    /// Profile directory (else `SENDLEDGER_PROFILE`, else the platform data directory).
    pub profile: Option<PathBuf>,
    /// Start in the tray without opening the window (autostart uses this).
    pub hidden: bool,
}

impl Args {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Args {
        let mut out = Args::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            if a == "--hidden" {
                out.hidden = true;
            } else if a == "--profile" {
                out.profile = it.next().map(PathBuf::from);
            } else if let Some(p) = a.strip_prefix("--profile=") {
                out.profile = Some(PathBuf::from(p));
            }
        }
        out
    }
}

/// The OS user: the default "who" of a person's decision (`$USER`, else the account name
/// of the process's uid, else "person").
pub fn os_user() -> String {
    let from_env = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .ok()
        .filter(|u| !u.trim().is_empty());
    from_env
        .or_else(account_name)
        .unwrap_or_else(|| "person".into())
}

fn account_name() -> Option<String> {
    // SAFETY: getpwuid returns a pointer into static storage or null; the name is copied
    // out before anything else can call it on this thread.
    unsafe {
        let pw = libc::getpwuid(libc::getuid());
        if pw.is_null() || (*pw).pw_name.is_null() {
            return None;
        }
        let name = std::ffi::CStr::from_ptr((*pw).pw_name);
        name.to_str().ok().map(str::to_string)
    }
}

/// Runs the app until Quit.
pub fn run() {
    let args = Args::parse(std::env::args().skip(1));
    let app = with_plugins(tauri::Builder::default(), &args)
        .invoke_handler(commands::handler())
        .setup(move |app| {
            let desk = match start_owner(&args) {
                Ok(d) => Arc::new(d),
                Err(message) => refuse_to_start(&message),
            };
            app.manage(desk.clone());
            let status = tauri::async_runtime::block_on(desk.status()).map_err(|e| e.message)?;
            let tray = tray::Tray::build(app.handle(), desk.clone(), &status)?;
            log::info!("tray ready");
            live::forward_events(desk.clone());
            live::follow_writes(desk.clone());
            live::follow_status(desk.clone(), tray);
            notifications::spawn_sweep(app.handle().clone(), desk);
            quit_on_sigterm(app.handle().clone());
            if !args.hidden {
                window::open(app.handle());
            }
            Ok(())
        })
        .on_window_event(|window, event| {
            if let WindowEvent::Destroyed = event {
                if window.label() == window::LABEL {
                    window.state::<Arc<Desk>>().forget_listeners();
                    return_freed_memory();
                }
            }
        })
        .build(tauri::generate_context!())
        .expect("the app could not be built");
    app.run(|app, event| match event {
        // Closing the window keeps the app in the tray; only Quit (an explicit code) exits.
        RunEvent::ExitRequested {
            code: None, api, ..
        } => api.prevent_exit(),
        RunEvent::Exit => {
            let desk = app.state::<Arc<Desk>>().inner().clone();
            tauri::async_runtime::block_on(desk.shutdown());
        }
        _ => {}
    });
}

/// The plugins, in order: single instance first (a second launch hands over its arguments
/// and exits), then the log, autostart and window-state plugins.
fn with_plugins(builder: tauri::Builder<tauri::Wry>, args: &Args) -> tauri::Builder<tauri::Wry> {
    let log = tauri_plugin_log::Builder::new()
        .targets([
            tauri_plugin_log::Target::new(tauri_plugin_log::TargetKind::LogDir { file_name: None }),
            tauri_plugin_log::Target::new(tauri_plugin_log::TargetKind::Stderr),
        ])
        .level(log::LevelFilter::Info)
        .build();
    builder
        // First: a second launch hands over its arguments here and exits.
        .plugin(tauri_plugin_single_instance::init(|app, argv, _cwd| {
            if !argv.iter().any(|a| a == "--hidden") {
                window::open(app);
            }
        }))
        .plugin(log)
        .plugin(
            tauri_plugin_autostart::Builder::new()
                .args(autostart_args(args))
                .build(),
        )
        .plugin(
            tauri_plugin_window_state::Builder::default()
                .with_state_flags(
                    tauri_plugin_window_state::StateFlags::all()
                        - tauri_plugin_window_state::StateFlags::VISIBLE,
                )
                .build(),
        )
}

/// What a log-in starts: the tray only, on the profile this app was started with.
fn autostart_args(args: &Args) -> Vec<String> {
    let mut out = vec!["--hidden".to_string()];
    if let Some(p) = &args.profile {
        out.push(format!("--profile={}", p.display()));
    }
    out
}

/// SIGTERM (log-out, `kill`) quits as the tray's Quit does: the owner shuts down cleanly.
fn quit_on_sigterm<R: tauri::Runtime>(app: tauri::AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
                log::info!("SIGTERM: quitting");
                app.exit(0);
            }
            Err(e) => log::warn!("no SIGTERM handler: {e}"),
        }
    });
}

/// Hands the heap the closed web view freed back to the OS, so an app back in the tray is
/// as small as one that never opened its window (glibc keeps freed pages otherwise).
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory at the top of glibc's heaps.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn start_owner(args: &Args) -> Result<Desk, String> {
    let profile = Profile::resolve(args.profile.as_deref()).map_err(|e| e.to_string())?;
    let cfg = OwnerConfig {
        profile,
        port: None,
        bounds: Bounds::default(),
        clock: Arc::new(SystemClock),
    };
    tauri::async_runtime::block_on(Desk::start(cfg, os_user())).map_err(|e| e.to_string())
}

/// The profile cannot be owned (another owner runs, the ledger is damaged…): say so on
/// stderr, in the log and as a notification, and exit without touching anything.
fn refuse_to_start(message: &str) -> ! {
    let text = format!("sendledger could not start: {message}");
    log::error!("{text}");
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
    std::process::exit(EXIT_NOT_OWNER)
}
