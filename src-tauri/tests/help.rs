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
