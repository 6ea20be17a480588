//! Where sendledger's binaries are: installed side by side (`/usr/bin/` from the package,
//! `target/<profile>/` in a checkout), so each finds the others beside itself.

use std::path::PathBuf;

/// The binary `name`: the path in environment variable `env` when one is named and set
/// (tests, a development checkout), else `name` beside the running binary when an
/// executable file is there, else the bare `name` (looked up in the `PATH` when started).
pub fn beside_this_binary(name: &str, env: Option<&str>) -> PathBuf {
    if let Some(p) = env.and_then(std::env::var_os).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.parent()
                .map(|d| d.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)))
        })
        .filter(|p| crate::platform::is_executable(p))
        .unwrap_or_else(|| PathBuf::from(name))
}
