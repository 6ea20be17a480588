//! A launch that finds the profile's window running hands its arguments over (the
//! single-instance plugin's D-Bus call) and exits. A window that is closing can still hold
//! the profile's name and drop that call unanswered; the launch then starts again — by then
//! the name is free, so it becomes the window — at most [`HANDOVER_TRIES`] times,
//! [`HANDOVER_RETRY_MS`] apart, and otherwise says why it did not open.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

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

/// The hand-over was dropped (`why`, the plugin's error): starts this program again in
/// this process (`exec`, the same pid, stdin and environment) with the try counted, or,
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
    let mut again: Vec<OsString> = args
        .into_iter()
        .filter(|a| !a.to_str().is_some_and(|s| s.starts_with(TRY_ARG)))
        .collect();
    again.push(format!("{TRY_ARG}{}", tried + 1).into());
    let err = match std::env::current_exe() {
        Ok(exe) => Command::new(exe).args(again).exec(),
        Err(e) => e,
    };
    eprintln!("sendledger could not open its window: it could not start again: {err}");
    EXIT_NO_WINDOW
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
    }
}
