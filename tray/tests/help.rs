//! `sendledger-tray --help` and `--version` answer and start nothing: no profile is
//! made, no tray is shown.

use std::process::Command;

#[test]
fn help_and_version_print_and_start_nothing() {
    let root = tempfile_dir();
    let profile = root.join("profile");
    for (arg, says) in [
        ("--help", "Usage: sendledger-tray"),
        ("--version", env!("CARGO_PKG_VERSION")),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_sendledger-tray"))
            .arg(arg)
            .env("SENDLEDGER_PROFILE", &profile)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{arg}: {out:?}");
        assert!(stdout.contains(says), "{arg}: {stdout}");
        assert!(!profile.exists(), "{arg} made the profile");
    }
    let _ = std::fs::remove_dir_all(root);
}

/// A fresh directory under the system's temporary one (this crate has no tempfile).
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sendledger-tray-help-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
