//! How clients find the live owner: `bridge.json` (address, pid, start time) and
//! `client.token` in the profile, both 0600; the port setting in `config.json`.

use crate::clock::Millis;
use crate::profile::{Profile, ProfileError};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;

/// Names the live owner's bridge.
pub const BRIDGE_FILE: &str = "bridge.json";
/// The client-scope bearer token.
pub const CLIENT_TOKEN_FILE: &str = "client.token";
/// Profile settings: `{"port": 47615, "default_destination": {"new_chat": true}}`.
pub const CONFIG_FILE: &str = "config.json";

/// Contents of `bridge.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeInfo {
    /// `127.0.0.1:PORT`.
    pub address: SocketAddr,
    /// The owner's pid.
    pub pid: u32,
    /// When it started (ms).
    pub started_at: Millis,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    port: Option<u16>,
    /// Read by the ledger at queue time (`crate::destination::read_default`).
    #[serde(default, rename = "default_destination")]
    _default_destination: Option<serde_json::Value>,
}

/// The port set in `config.json`: `Ok(None)` when the file or the key is absent; an error
/// sentence when the file is there but unreadable or not `{"port": 1-65535}`.
pub fn configured_port(profile: &Profile) -> Result<Option<u16>, String> {
    let path = profile.file(CONFIG_FILE).map_err(|e| e.to_string())?;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    serde_json::from_str::<Config>(&text)
        .map(|c| c.port)
        .map_err(|e| {
            format!(
                "{} is not valid ({e}): write {{\"port\": 47615}} or remove the file",
                path.display()
            )
        })
}

pub(crate) fn write_bridge_json(
    profile: &Profile,
    address: SocketAddr,
    now: Millis,
) -> Result<(), ProfileError> {
    let info = BridgeInfo {
        address,
        pid: std::process::id(),
        started_at: now,
    };
    profile.write_private(
        BRIDGE_FILE,
        &serde_json::to_vec_pretty(&info).expect("serialises"),
    )?;
    Ok(())
}

pub(crate) fn remove_bridge_json(profile: &Profile) {
    if let Ok(p) = profile.file(BRIDGE_FILE) {
        let _ = std::fs::remove_file(p);
    }
}

/// The live owner's bridge, if `bridge.json` names the process that holds the owner lock.
/// A stale file (its owner died) is ignored.
pub fn live_bridge(profile: &Profile) -> Option<BridgeInfo> {
    let path = profile.file(BRIDGE_FILE).ok()?;
    let info: BridgeInfo = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let owner = profile.current_owner()?;
    (owner.pid == info.pid).then_some(info)
}
