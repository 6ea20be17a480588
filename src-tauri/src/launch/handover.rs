//! A launch that finds the profile's window running hands its arguments over
//! ([`crate::desktop::pass`], else the single-instance plugin's own call) and exits. A window that is closing can still hold
//! the profile's name and drop that call unanswered; the launch then starts again — by then
//! the name is free, so it becomes the window — at most [`HANDOVER_TRIES`] times,
//! [`HANDOVER_RETRY_MS`] apart, and otherwise says why it did not open. A closing window
//! that does take a launch starts it anew ([`relaunch`]), counted the same way.

use std::ffi::OsString;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// The desktop's activation token of this launch (GTK takes it out of the environment as
/// it starts): a launch started again passes it on, so its window still gets the focus.
static ACTIVATION: OnceLock<Vec<(&'static str, OsString)>> = OnceLock::new();

/// Keeps `DESKTOP_STARTUP_ID` and `XDG_ACTIVATION_TOKEN` before GTK starts.
pub fn keep_activation_token() {
    ACTIVATION.get_or_init(|| {
        ["DESKTOP_STARTUP_ID", "XDG_ACTIVATION_TOKEN"]
            .into_iter()
            .filter_map(|k| Some((k, std::env::var_os(k)?)))
            .collect()
    });
}

/// How many times a launch tries in all before it gives up on a dropped hand-over.
pub const HANDOVER_TRIES: u32 = 3;
/// How long a launch waits before it starts again, in ms.
pub const HANDOVER_RETRY_MS: u64 = 250;
/// The argument that counts the tries (`--handover-try=N`, N ≥ 1; absent: the first).
pub const TRY_ARG: &str = "--handover-try=";
/// Exit code when the window could not be opened.
pub const EXIT_NO_WINDOW: i32 = 4;

/// Which try this is (1 for the first), from the arguments after the program name.
pub fn this_try(args: &[OsString]) -> u32 {
    args.iter()
        .filter_map(|a| a.to_str()?.strip_prefix(TRY_ARG)?.parse().ok())
        .next_back()
        .unwrap_or(1)
}

/// `args` with the try after `tried` counted in place of any earlier count.
fn next_try(args: Vec<OsString>, tried: u32) -> Vec<OsString> {
    let mut again: Vec<OsString> = args
        .into_iter()
        .filter(|a| !a.to_str().is_some_and(|s| s.starts_with(TRY_ARG)))
        .collect();
    again.push(format!("{TRY_ARG}{}", tried + 1).into());
    again
}

/// The hand-over was dropped (`why`, the plugin's error): starts this program again in
/// this process (`exec` on Linux: the same pid, stdin and environment; see
/// [`crate::desktop::exec`]) with the try counted, or,
/// after the last try, says so on stderr and returns the exit code.
pub fn start_again(why: &str) -> i32 {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let tried = this_try(&args);
    if tried >= HANDOVER_TRIES {
        eprintln!(
            "sendledger could not open its window: the profile's window did not take the \
             launch ({why}), {tried} times; open it again from the tray or the desktop menu"
        );
        return EXIT_NO_WINDOW;
    }
    // Before the log plugin (built after the hand-over): stderr only.
    eprintln!("sendledger: the profile's window did not take the launch ({why}): starting again");
    std::thread::sleep(Duration::from_millis(HANDOVER_RETRY_MS));
    let again = next_try(args, tried);
    let err = match std::env::current_exe() {
        Ok(exe) => crate::desktop::exec(
            Command::new(exe)
                .args(again)
                .envs(ACTIVATION.get().into_iter().flatten().cloned()),
        ),
        Err(e) => e,
    };
    eprintln!("sendledger could not open its window: it could not start again: {err}");
    EXIT_NO_WINDOW
}

/// The running window did not answer the launch within [`crate::desktop::ANSWER_MS`]: says
/// what to do on stderr and returns the exit code (it may still be starting under load;
/// if it never shows, it is stuck).
pub fn unanswered(pid: Option<u32>) -> i32 {
    let who = pid.map_or("its process".to_string(), |p| format!("process {p}"));
    eprintln!(
        "sendledger could not open its window: the profile's window did not answer within {} s; \
         if no window appears, it is stuck: end it ({who}, e.g. `kill {}`) and launch again",
        crate::desktop::ANSWER_MS / 1000,
        pid.map_or("PID".to_string(), |p| p.to_string())
    );
    EXIT_NO_WINDOW
}

/// A launch handed over to this window as it ends (`argv` as the plugin passes it, the
/// program first): started anew as a process of its own on `profile` (this window's: the
/// launch's own `--profile` may be relative to a directory, or come from an environment,
/// this process does not share), with the try counted, unless it has had its tries.
pub fn relaunch(argv: &[String], profile: &std::path::Path) {
    let args: Vec<OsString> = argv.iter().skip(1).map(OsString::from).collect();
    let tried = this_try(&args);
    if tried >= HANDOVER_TRIES {
        log::warn!("a launch came as this window ends, after {tried} tries: not started again");
        return;
    }
    let mut again = next_try(args, tried);
    // The last `--profile` wins (`Args::parse`).
    again.push(format!("--profile={}", profile.display()).into());
    let started = std::env::current_exe()
        .and_then(|exe| Command::new(exe).args(again).stdin(Stdio::null()).spawn());
    match started {
        Ok(child) => log::info!(
            "a launch came as this window ends: started anew (pid {})",
            child.id()
        ),
        Err(e) => log::error!("a launch came as this window ends and could not start anew: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_try_is_counted_by_the_last_try_argument() {
        let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(this_try(&args(&["--profile", "/p"])), 1);
        assert_eq!(this_try(&args(&["--handover-try=2"])), 2);
        assert_eq!(
            this_try(&args(&["--handover-try=2", "--handover-try=3"])),
            3
        );
        assert_eq!(this_try(&args(&["--handover-try=x"])), 1);
        let next = next_try(args(&["--profile", "/p", "--handover-try=2"]), 2);
        assert_eq!(next, args(&["--profile", "/p", "--handover-try=3"]));
    }
}
