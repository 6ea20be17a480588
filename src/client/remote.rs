//! Naming the owner by URL (issue 38): a client on another machine reaches the owner
//! through an SSH tunnel (`ssh -N -L 9000:127.0.0.1:PORT desktop`), so the owner it names
//! is a loopback URL on its own machine (`http://127.0.0.1:9000`), and it authenticates
//! with a named API key (`sendledger keys create NAME --scope send|all` on the owner's
//! machine) — never the profile's `client.token`, which stays on the owner's machine.
//!
//! This is the one place that reads them: the URL from `--owner` or
//! [`OWNER_URL_ENV`], the key from the file `--key-file` names or [`API_KEY_ENV`] (never
//! from the command line, where every user of the machine could read it). The CLI and
//! `sendledger mcp` call [`name_the_owner`] once at start; afterwards every client call
//! ([`super::BridgeClient::discover`], [`super::OwnerLink`]) goes to that owner, and the
//! commands that would open a ledger refuse ([`refuse_local`]): a remote client never opens
//! one.

use super::ClientError;
use std::path::Path;
use std::sync::OnceLock;

/// The variable naming the owner by URL (`http://127.0.0.1:9000`), as `--owner` does.
pub const OWNER_URL_ENV: &str = "SENDLEDGER_OWNER_URL";
/// The variable holding the API key for an owner named by URL (when no `--key-file`).
pub const API_KEY_ENV: &str = "SENDLEDGER_API_KEY";
/// A key file is read up to this many bytes (a key is 70).
const KEY_FILE_MAX: u64 = 4096;

/// An owner named by URL, and the key this client presents to it.
#[derive(Clone)]
pub struct RemoteOwner {
    /// `http://HOST:PORT`, no trailing slash.
    pub base: String,
    /// The named key (`sk-sl-…`).
    pub key: String,
}

impl std::fmt::Debug for RemoteOwner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RemoteOwner({}, key hidden)", self.base)
    }
}

static NAMED: OnceLock<Option<RemoteOwner>> = OnceLock::new();

fn refused(message: String) -> ClientError {
    ClientError::Refused {
        status: 0,
        code: crate::api::ErrorCode::Malformed.as_str().into(),
        message,
    }
}

/// Reads the owner's URL (`owner`, from `--owner` or [`OWNER_URL_ENV`]) and the key
/// (`key_file`, else [`API_KEY_ENV`]) once for this process. No URL: the owner is found
/// through the profile as always (`Ok(None)`). Errors (`malformed`): a URL that is not
/// `http://` and a loopback host with a port, no key, or a key that is not one.
pub fn name_the_owner(
    owner: Option<&str>,
    key_file: Option<&Path>,
) -> Result<Option<RemoteOwner>, ClientError> {
    let named = match owner.filter(|o| !o.is_empty()) {
        None => {
            if key_file.is_some() {
                return Err(refused("--key-file is the key for an owner named by --owner (or SENDLEDGER_OWNER_URL): name the owner too, or leave the key file out to use this machine's own profile".into()));
            }
            None
        }
        Some(url) => Some(RemoteOwner {
            base: base_of(url)?,
            key: key(key_file)?,
        }),
    };
    Ok(NAMED.get_or_init(|| named).clone())
}

/// The owner named by URL for this process, if one was ([`name_the_owner`]).
pub fn named() -> Option<&'static RemoteOwner> {
    NAMED.get().and_then(Option::as_ref)
}

/// Refuses `what` (a command that needs the ledger or the profile's files) when the owner
/// was named by URL: it can only be done on the owner's machine.
pub fn refuse_local(what: &str) -> Result<(), ClientError> {
    match named() {
        None => Ok(()),
        Some(r) => Err(ClientError::Refused {
            status: 0,
            code: crate::api::ErrorCode::NoOwner.as_str().into(),
            message: format!("{what} needs the local profile, and this command names an owner elsewhere ({}): run it on the machine that runs the owner, or without --owner and SENDLEDGER_OWNER_URL", r.base),
        }),
    }
}

/// `http://HOST:PORT` from `url` (a trailing `/` or `/v1` is the same owner).
fn base_of(url: &str) -> Result<String, ClientError> {
    let bad = || {
        refused(format!(
            "the owner's URL {url:?} is not one this client can use: name it as http://127.0.0.1:PORT (the local end of the SSH tunnel to the owner's machine, e.g. `ssh -N -L PORT:127.0.0.1:OWNER_PORT desktop`)"
        ))
    };
    let rest = url.strip_prefix("http://").ok_or_else(bad)?;
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix("/v1").unwrap_or(rest);
    let split = match rest.find(']') {
        Some(end) => end + 1,
        None => rest.rfind(':').unwrap_or(rest.len()),
    };
    let (host, port) = rest.split_at(split);
    let loopback = ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|n| host.eq_ignore_ascii_case(n));
    let port_ok = port.strip_prefix(':').is_some_and(|p| {
        p.parse::<u16>().is_ok_and(|n| n > 0) && p.bytes().all(|b| b.is_ascii_digit())
    });
    if !loopback || !port_ok {
        return Err(bad());
    }
    Ok(format!("http://{host}{port}"))
}

/// The key from `key_file` (its first line), else [`API_KEY_ENV`].
fn key(key_file: Option<&Path>) -> Result<String, ClientError> {
    let (found, from) = match key_file {
        Some(path) => {
            let mut text = String::new();
            let read = std::fs::File::open(path).and_then(|f| {
                std::io::Read::read_to_string(&mut std::io::Read::take(f, KEY_FILE_MAX), &mut text)
            });
            if let Err(e) = read {
                return Err(refused(format!(
                    "the key file {} could not be read ({e}): put the key `sendledger keys create NAME --scope send` printed on the owner's machine in it",
                    path.display()
                )));
            }
            (text, format!("the key file {}", path.display()))
        }
        None => (
            std::env::var(API_KEY_ENV).unwrap_or_default(),
            API_KEY_ENV.to_string(),
        ),
    };
    let key = found.lines().next().unwrap_or("").trim().to_string();
    if key.is_empty() {
        return Err(refused(format!("an owner named by URL needs a key, and {from} holds none: make one on the owner's machine (`sendledger keys create NAME --scope send`) and put it in a file named by --key-file or in {API_KEY_ENV} (never on the command line)")));
    }
    if !key.starts_with(crate::ledger::KEY_PREFIX) || key.len() > 128 {
        return Err(refused(format!("{from} does not hold a sendledger key (they begin sk-sl-): put the key `sendledger keys create` printed in it")));
    }
    Ok(key)
}
