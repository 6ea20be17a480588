//! How clients find the live owner: `bridge.json` (address, pid, start time) and
//! `client.token` in the profile, both 0600; the port setting in `config.json`
//! ([`super::config`]).

use super::config::Config;
use crate::clock::Millis;
use crate::profile::{Profile, ProfileError};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;

/// Names the live owner's bridge.
pub const BRIDGE_FILE: &str = "bridge.json";
/// The client-scope bearer token.
pub const CLIENT_TOKEN_FILE: &str = "client.token";
pub use super::config::CONFIG_FILE;

/// Default bridge port of a profile made by this version: below Linux's range for
/// outgoing connections (32768–60999) and Windows' (49152–65535), so no outgoing
/// connection of another program can be holding it when the owner starts. A new profile's
/// first owner writes it into `config.json`, so it never changes under a paired extension.
pub const DEFAULT_PORT: u16 = 27615;
/// The default port before it moved out of the ephemeral range: a profile that already
/// had a ledger and names no port keeps it, since its extension was paired to it.
pub const LEGACY_DEFAULT_PORT: u16 = 47615;

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

/// The port set in `config.json`: `Ok(None)` when the file or the key is absent. Errors:
/// the file unreadable or not valid ([`Config::load`]).
pub fn configured_port(profile: &Profile) -> Result<Option<u16>, String> {
    Ok(Config::load(profile)?.port)
}

/// The port an owner of `profile` binds when asked for none: `config.json`'s; else, for
/// a profile that already has a ledger (made before the default moved),
/// [`LEGACY_DEFAULT_PORT`]; else [`DEFAULT_PORT`]. Errors: `config.json` unreadable.
pub fn default_port(profile: &Profile) -> Result<u16, String> {
    if let Some(p) = configured_port(profile)? {
        return Ok(p);
    }
    let had_ledger = profile.ledger_path().map(|p| p.exists()).unwrap_or(false);
    Ok(if had_ledger {
        LEGACY_DEFAULT_PORT
    } else {
        DEFAULT_PORT
    })
}

/// Fixes a profile's port in `config.json` when it has neither a ledger nor a port yet
/// (a new profile), so later starts keep [`DEFAULT_PORT`]. Called before the first
/// ledger is made.
pub(crate) fn pin_new_profile_port(profile: &Profile) -> Result<(), String> {
    let had_ledger = profile.ledger_path().map(|p| p.exists()).unwrap_or(true);
    if had_ledger || configured_port(profile)?.is_some() {
        return Ok(());
    }
    let path = profile.file(CONFIG_FILE).map_err(|e| e.to_string())?;
    if path.exists() {
        return Ok(()); // `{}`: a person's file, left as it is
    }
    Config::update(profile, |c| {
        c.port = Some(DEFAULT_PORT);
        Ok(())
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
