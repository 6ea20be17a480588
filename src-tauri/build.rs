//! Generates the app's context and one permission per command (`allow-<command>`), which
//! capabilities/queue-window.json grants to the queue window — and nothing else.

/// The app's own commands: the only IPC the window may use.
const COMMANDS: &[&str] = &[
    "snapshot",
    "subscribe",
    "history_page",
    "stopped_page",
    "stop",
    "resume",
    "resolve",
    "requeue",
    "withdraw",
    "pairing_code",
    "connect",
    "create_key",
    "revoke_key",
    "settings",
    "save_settings",
    "start_tray",
    "artifact_preview",
    "save_artifact",
    "page_check",
];

fn main() {
    // The window's files and the icons are embedded at compile time.
    println!("cargo:rerun-if-changed=../ui");
    println!("cargo:rerun-if-changed=../icons");
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build step failed");
}
