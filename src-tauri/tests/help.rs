//! `sendledger-app --help` and `--version` answer on stdout and open nothing: no tray
//! started, no profile made, no window.

use std::process::Command;

#[test]
fn help_and_version_print_and_start_nothing() {
    let root = tempfile::tempdir().unwrap();
    let profile = root.path().join("profile");
    for (arg, says) in [
        ("--help", "Usage: sendledger-app"),
        ("-h", "--intent=pair"),
        ("--version", env!("CARGO_PKG_VERSION")),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_sendledger-app"))
            .arg(arg)
            .env("SENDLEDGER_PROFILE", &profile)
            // No display: a window attempt would fail loudly instead of opening.
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{arg}: {out:?}");
        assert!(stdout.contains(says), "{arg}: {stdout}");
        assert!(
            !profile.exists(),
            "{arg} made the profile (it started the tray)"
        );
    }
}

/// A command line the app cannot understand is said, with exit code 2, before anything
/// starts: a `--profile` with no directory would otherwise fall back to the default
/// profile and start a tray there.
#[test]
fn a_profile_without_a_directory_or_an_unknown_intent_is_refused_before_anything_starts() {
    let root = tempfile::tempdir().unwrap();
    let default = root.path().join("default-profile");
    for (args, says) in [
        (&["--profile"][..], "--profile needs a directory after it"),
        (
            &["--profile", "--hidden"],
            "--profile needs a directory after it",
        ),
        (&["--intent=foo"], "--intent=foo is not an intent"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_sendledger-app"))
            .args(args)
            .env("SENDLEDGER_PROFILE", &default)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!default.exists(), "{args:?} made the default profile");
    }
}
