//! The profile's settings file, `config.json` (0600), and its one owner: every key with
//! its bounds and its default is here, and nothing else in the crate parses the file.
//!
//! Shape (every key optional):
//! `{"port": 27615, "max_in_flight": 1, "default_destinations": {"chatgpt": {"new_chat": true}}}`
//! - `port`: the bridge's port on 127.0.0.1, 0 to 65535 (0: any free port); absent: see
//!   [`super::discovery::default_port`];
//! - `max_in_flight`: how many sends may be in flight at once across the profile, 1 to
//!   [`MAX_IN_FLIGHT`]; absent: [`DEFAULT_MAX_IN_FLIGHT`];
//! - `default_destinations`: per site, where a send that names no place goes (the fields of
//!   a send's place, [`Named`]); absent: a new chat. The older single key
//!   `default_destination` is read as chatgpt's and rewritten as `default_destinations` at
//!   the next change.
//!
//! **Unknown keys are refused**, by the reader and by every change: a misspelt key kept
//! silently would be a setting a person believes in and nothing applies. The sentence
//! names the key.
//!
//! A person changes a setting by an act (`crate::api::Request::SetMaxInFlight`,
//! `SetDefaultDestination`): the owner applies it when one runs, else the calling process
//! does ([`Config::update`]). Every change is one [`Config::update`]: an exclusive lock on
//! `config.lock` held across read, change and write, the new file written to a temporary
//! file, fsynced and renamed over the old one — never a partial file, never a change lost
//! to another made at the same instant (`tests/settings_acts.rs`). A hand edit of the file
//! takes effect at the owner's next start.

use super::Profile;
use crate::destination::{ChosenBy, Destination, Named};
use crate::site::Site;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;

/// Profile settings (see the module's shape).
pub const CONFIG_FILE: &str = "config.json";
/// Held (exclusively) across every read-change-write of [`CONFIG_FILE`].
pub const CONFIG_LOCK_FILE: &str = "config.lock";
/// The largest `max_in_flight`: each send in flight takes a tab of its own, and a person
/// watches them all.
pub const MAX_IN_FLIGHT: u32 = 8;
/// `max_in_flight` when none is set: one send at a time.
pub const DEFAULT_MAX_IN_FLIGHT: u32 = 1;
/// Largest `config.json` read, in bytes (a real one is under 1 KB).
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// The typed `config.json`. Read with [`Config::load`]; changed only by [`Config::update`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The bridge's port (0: any free port).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// Sends in flight at once, 1 to [`MAX_IN_FLIGHT`] (kept as written, checked at load,
    /// so the refusal names the key and the value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_in_flight: Option<serde_json::Value>,
    /// Per site, where a send that names no place goes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    default_destinations: BTreeMap<Site, Named>,
    /// The older key: chatgpt's default (read; folded into `default_destinations`).
    #[serde(default, skip_serializing)]
    default_destination: Option<Named>,
}

/// The sentence for a `max_in_flight` out of bounds.
fn cap_refusal(n: i64) -> String {
    format!("max_in_flight must be a whole number from 1 to {MAX_IN_FLIGHT}, not {n}")
}

/// Checks a `max_in_flight` a person asked for. Errors: the sentence saying the bound.
pub fn check_max_in_flight(n: i64) -> Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| (1..=MAX_IN_FLIGHT).contains(n))
        .ok_or_else(|| cap_refusal(n))
}

impl Config {
    /// `max_in_flight` in force ([`DEFAULT_MAX_IN_FLIGHT`] when unset).
    pub fn max_in_flight(&self) -> u32 {
        self.max_in_flight
            .as_ref()
            .and_then(serde_json::Value::as_i64)
            .and_then(|n| check_max_in_flight(n).ok())
            .unwrap_or(DEFAULT_MAX_IN_FLIGHT)
    }

    /// The default destination of `site` (chosen by: default); a new chat when unset.
    pub fn default_destination(&self, site: Site) -> Destination {
        let fresh = Destination {
            site,
            ..Destination::new_chat()
        };
        self.named_default(site)
            .and_then(|n| on_site(n, site).resolve(&fresh).ok())
            .map(|d| Destination {
                chosen_by: ChosenBy::Default,
                ..d
            })
            .unwrap_or(fresh)
    }

    fn named_default(&self, site: Site) -> Option<&Named> {
        // The older key is chatgpt.com's (written before sites).
        self.default_destinations.get(&site).or(self
            .default_destination
            .as_ref()
            .filter(|_| site == Site::Chatgpt))
    }

    /// Sets `max_in_flight`. Errors: out of bounds (nothing changed).
    pub fn set_max_in_flight(&mut self, n: i64) -> Result<u32, String> {
        let n = check_max_in_flight(n)?;
        self.max_in_flight = Some(n.into());
        Ok(n)
    }

    /// Sets `site`'s default destination to `named`, checked like a send's place; returns
    /// it resolved. Errors: the sentence of a place that is not valid (nothing changed).
    pub fn set_default_destination(
        &mut self,
        site: Site,
        named: &Named,
    ) -> Result<Destination, String> {
        let fresh = Destination {
            site,
            ..Destination::new_chat()
        };
        let d = on_site(named, site).resolve(&fresh)?;
        let stored = Named {
            site: None,
            conversation_id: d.conversation_id.clone(),
            project_id: d.project_id.clone(),
            new_chat: d.kind == crate::destination::Kind::NewChat,
            model: d.model.clone(),
            effort: d.effort.clone(),
        };
        if let Some(old) = self.default_destination.take() {
            self.default_destinations
                .entry(Site::Chatgpt)
                .or_insert(old);
        }
        self.default_destinations.insert(site, stored);
        Ok(self.default_destination(site))
    }

    /// Every key within its bounds. Errors: the sentence naming the first that is not.
    fn check(&self) -> Result<(), String> {
        match &self.max_in_flight {
            None | Some(serde_json::Value::Null) => {}
            Some(v) => {
                v.as_i64()
                    .and_then(|n| check_max_in_flight(n).ok())
                    .ok_or_else(|| {
                        format!("max_in_flight is {v}, which is not a whole number from 1 to {MAX_IN_FLIGHT}")
                    })?;
            }
        }
        let chatgpt_old = self.default_destination.iter().map(|n| (Site::Chatgpt, n));
        for (site, named) in self
            .default_destinations
            .iter()
            .map(|(s, n)| (*s, n))
            .chain(chatgpt_old)
        {
            on_site(named, site)
                .resolve(&Destination::new_chat())
                .map_err(|e| {
                    format!(
                        "the default destination for {} is not valid ({e})",
                        site.as_str()
                    )
                })?;
        }
        Ok(())
    }

    /// The profile's settings: the defaults when `config.json` is absent. Errors: a
    /// sentence naming the file, what is wrong (unreadable, not JSON, an unknown key, a
    /// value out of bounds) and what to do; the owner does not start on it.
    pub fn load(profile: &Profile) -> Result<Config, String> {
        let _held = lock(profile)?;
        read(profile)
    }

    /// Applies `change` to the profile's settings and writes them, holding
    /// [`CONFIG_LOCK_FILE`] from the read to the rename, so two changes at once are both
    /// kept. The file is written whole to a temporary file, fsynced, then renamed over
    /// `config.json` (0600). Errors: the file unreadable or not valid, `change`'s own
    /// sentence, or the write refused; nothing is changed then.
    pub fn update<T>(
        profile: &Profile,
        change: impl FnOnce(&mut Config) -> Result<T, String>,
    ) -> Result<T, String> {
        let _held = lock(profile)?;
        let mut config = read(profile)?;
        let out = change(&mut config)?;
        config.check()?;
        write(profile, &config)?;
        Ok(out)
    }
}

/// The exclusive lock on [`CONFIG_LOCK_FILE`], released when the file is dropped.
fn lock(profile: &Profile) -> Result<File, String> {
    let path = profile.file(CONFIG_LOCK_FILE).map_err(|e| e.to_string())?;
    let file = crate::platform::private_file(OpenOptions::new().write(true).create(true))
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    file.lock()
        .map_err(|e| format!("cannot lock {}: {e}", path.display()))?;
    Ok(file)
}

/// `config.json` as it is (the caller holds the lock).
fn read(profile: &Profile) -> Result<Config, String> {
    let path = profile.file(CONFIG_FILE).map_err(|e| e.to_string())?;
    let shown = path.display();
    let mut text = String::new();
    match File::open(&path) {
        Ok(f) => std::io::Read::read_to_string(
            &mut std::io::Read::take(f, MAX_CONFIG_BYTES + 1),
            &mut text,
        )
        .map_err(|e| format!("cannot read {shown}: {e}"))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!(
            "{shown} is over {MAX_CONFIG_BYTES} bytes, which no settings file is: remove it and set the settings again"
        ));
    }
    if text.trim().is_empty() {
        return Ok(Config::default());
    }
    let config: Config = serde_json::from_str(&text).map_err(|e| {
        format!("{shown} is not valid ({e}): fix or remove it (every key is optional: port, max_in_flight, default_destinations)")
    })?;
    config
        .check()
        .map_err(|e| format!("{shown}: {e}: set it again with `sendledger max-in-flight N` or `sendledger destination set …` (or in the queue window's settings)"))?;
    Ok(config)
}

/// Writes `config` whole: a temporary file in the profile, fsynced, renamed over
/// `config.json`.
fn write(profile: &Profile, config: &Config) -> Result<(), String> {
    let path = profile.file(CONFIG_FILE).map_err(|e| e.to_string())?;
    let failed = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let mut tmp = tempfile::Builder::new()
        .prefix(".config.json.")
        .tempfile_in(profile.dir())
        .map_err(|e| failed(&e))?;
    let text = serde_json::to_string_pretty(config).expect("settings serialise");
    tmp.write_all(text.as_bytes()).map_err(|e| failed(&e))?;
    tmp.write_all(b"\n").map_err(|e| failed(&e))?;
    tmp.as_file().sync_all().map_err(|e| failed(&e))?;
    tmp.persist(&path).map_err(|e| failed(&e.error))?;
    Ok(())
}

/// `named` as a default of `site`: a place naming no site is that site's; a page address of
/// another site is refused by [`Named::resolve`] with its sentence.
fn on_site(named: &Named, site: Site) -> Named {
    Named {
        site: Some(named.site.unwrap_or(site)),
        ..named.clone()
    }
}
