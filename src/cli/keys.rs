//! `keys create NAME --scope send|all`, `keys list`, `keys revoke NAME`: named API keys
//! for companions and other machines (docs/openai.md; scopes: docs/bridge-api.md). A key
//! is shown once, when made; the profile keeps its SHA-256.

use super::backend;
use super::output::{
    rendered, say_on_stderr, stdout_goes_nowhere, write_failed, write_line, CliError,
};
use crate::api::{self, Outcome, Request};
use crate::ledger::{key_sha256, ApiKey, KeyScope};
use crate::profile::discovery;
use std::path::Path;

/// The key commands.
#[derive(Debug, clap::Subcommand)]
pub enum KeysCommand {
    /// Make a key for a companion or another machine; prints it once (store it in the
    /// companion's settings, or in a file the other machine reads with --key-file).
    Create {
        /// A name for it (1–64 letters, digits, . _ -), e.g. the companion's or the machine's.
        name: String,
        /// What it opens: `send` (queue sends and read them, through the OpenAI doors, the
        /// native API and MCP; no Stop, Resume, decisions, settings, keys or pairing) or
        /// `all` (every client route, as on this machine).
        #[arg(long, value_enum, default_value = "send")]
        scope: ScopeArg,
        /// Who makes it (default: the OS user).
        #[arg(long)]
        by: Option<String>,
    },
    /// List keys with their last use (never the keys themselves).
    List,
    /// Revoke a key: its next request gets 401.
    Revoke {
        /// The key's name.
        name: String,
        /// Who revokes it (default: the OS user).
        #[arg(long)]
        by: Option<String>,
    },
}

/// The scopes a new key may have.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ScopeArg {
    /// Sends and reads only.
    Send,
    /// Every client route.
    All,
}

impl From<ScopeArg> for KeyScope {
    fn from(s: ScopeArg) -> Self {
        match s {
            ScopeArg::Send => KeyScope::Send,
            ScopeArg::All => KeyScope::All,
        }
    }
}

pub(crate) fn run(profile: Option<&Path>, json: bool, c: KeysCommand) -> Result<(), CliError> {
    if matches!(c, KeysCommand::Create { .. }) && stdout_goes_nowhere() {
        return Err(CliError::Usage(
            "keys create shows the new key once, on standard output, and that goes nowhere a person or a program reads (/dev/null or another device, closed, or open only for reading): nobody would see the key, so none was made; run it again with its output going to a terminal, a file or a pipe".into(),
        ));
    }
    let answered = through_owner_or_ledger(profile, &c)?;
    let base = match c {
        KeysCommand::Create { .. } => base_url(profile),
        _ => Err(String::new()),
    };
    let secret = match &answered {
        Answered::Outcome(o) => match o.as_ref() {
            Outcome::KeyCreated { secret, .. } => Some(secret.expose()),
            Outcome::KeyRevoked { .. } => None,
            _ => return Err(CliError::unexpected("a key")),
        },
        Answered::Keys { .. } => None,
    };
    let answer = KeysAnswer {
        answered: &answered,
        base_url: base.as_ref().ok(),
    };
    let out = rendered(json, &answer, || {
        match (&c, &answered) {
        (KeysCommand::Create { name, scope, .. }, _) => format!(
            "key {name} (scope {}): {}\nshown once: put it in the companion's settings as its API key (base URL {}), or on another machine in a file named by --key-file or in SENDLEDGER_API_KEY (README, \"Another machine\")",
            KeyScope::from(*scope).as_str(),
            secret.unwrap_or_default(),
            base.as_deref().unwrap_or_else(|why| why)
        ),
        (KeysCommand::Revoke { name, .. }, _) => {
            format!("key {name} revoked: its next request gets 401")
        }
        (KeysCommand::List, Answered::Keys { keys }) => list_text(keys),
        (KeysCommand::List, _) => String::new(),
    }
    });
    match (write_line(&out), &c) {
        (Ok(()), _) => Ok(()),
        (Err(e), KeysCommand::Create { name, .. }) => {
            unseen_key_revoked(profile, name, &key_sha256(secret.unwrap_or_default()), &e)
        }
        (Err(e), _) => write_failed(&e),
    }
}

/// What a key command answers: a key made or revoked (its outcome), or the list.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Answered {
    Outcome(Box<Outcome>),
    Keys { keys: Vec<ApiKey> },
}

/// The JSON printed: the answer, with the door's base URL beside a new key.
#[derive(serde::Serialize)]
struct KeysAnswer<'a> {
    #[serde(flatten)]
    answered: &'a Answered,
    #[serde(skip_serializing_if = "Option::is_none")]
    base_url: Option<&'a String>,
}

/// A new key whose secret could not be written out (stdout full, closed, gone) is a live
/// key nobody has: it is revoked at once, and the command ends with status 74 and a
/// sentence. (A reader that takes part of the line and leaves, `| head -c1`, cannot be
/// told from one that read it all: the write succeeded.)
fn unseen_key_revoked(profile: Option<&Path>, name: &str, hash: &str, e: &std::io::Error) -> ! {
    // This key exactly: by then someone may have revoked it and made another of that name.
    let revoke = Request::KeyRevoke {
        name: name.into(),
        by: "sendledger keys create (the new key could not be shown)".into(),
        key_sha256: Some(hash.into()),
    };
    let what = match backend::apply(profile, &revoke) {
        Ok(_) => format!(
            "so it was revoked at once: run `sendledger keys create {name}` again with its output going somewhere you can read"
        ),
        // Someone revoked it meanwhile: a key made since under that name is another one.
        Err(r) if r.code() == "invalid" => {
            "and it was already revoked by then (a key made since under that name is another one and stays live)".into()
        }
        Err(r) => format!(
            "and revoking it failed ({r}): see `sendledger keys list`, and revoke the key named {name} only if it is still the one made now"
        ),
    };
    say_on_stderr(&format!(
        "sendledger: key {name} was made but could not be shown (standard output: {e}), {what}"
    ));
    std::process::exit(74)
}

/// Making and revoking go through [`backend::apply`] (the live owner's key routes, else the
/// ledger itself), the same `api` requests the bridge and the app apply; the list is the
/// owner's `GET /v1/keys`, else [`api::keys`] on the ledger.
fn through_owner_or_ledger(profile: Option<&Path>, c: &KeysCommand) -> Result<Answered, CliError> {
    let who = |by: &Option<String>| by.clone().unwrap_or_else(backend::os_user);
    let req = match c {
        KeysCommand::Create { name, scope, by } => Request::KeyCreate {
            name: name.clone(),
            scope: (*scope).into(),
            by: who(by),
        },
        KeysCommand::Revoke { name, by } => Request::KeyRevoke {
            name: name.clone(),
            by: who(by),
            key_sha256: None,
        },
        KeysCommand::List => return list(profile),
    };
    Ok(Answered::Outcome(Box::new(backend::apply(profile, &req)?)))
}

/// The OpenAI door's base URL: the running owner's address, else the port an owner of this
/// profile will bind (its `config.json`, else the default). `Err` says why it is not known
/// yet (a `config.json` asking for any free port, or one that cannot be read).
fn base_url(profile: Option<&Path>) -> Result<String, String> {
    if let Some(r) = crate::client::remote::named() {
        return Ok(format!("{}/v1", r.base));
    }
    let profile = backend::profile(profile).map_err(|e| e.to_string())?;
    if let Some(b) = discovery::live_bridge(&profile) {
        return Ok(format!("http://{}/v1", b.address));
    }
    match discovery::default_port(&profile) {
        Ok(0) => Err(
            "the profile's config.json asks for any free port: start the owner, and its bridge.json names the port".into(),
        ),
        Ok(port) => Ok(format!("http://127.0.0.1:{port}/v1")),
        Err(e) => Err(format!(
            "the profile's config.json cannot be read ({e}): fix it, the owner does not start until then"
        )),
    }
}

fn list(profile: Option<&Path>) -> Result<Answered, CliError> {
    if let Some(client) = backend::owner(profile)? {
        return Ok(Answered::Keys {
            keys: client.keys()?,
        });
    }
    let profile = backend::profile(profile)?;
    let ledger = api::outside::open(&profile)?;
    Ok(Answered::Keys {
        keys: api::keys(&ledger)?,
    })
}

fn list_text(keys: &[ApiKey]) -> String {
    if keys.is_empty() {
        return "no keys: make one with `sendledger keys create NAME`".into();
    }
    let at = |ms: Option<i64>| {
        ms.map(super::output::when)
            .unwrap_or_else(|| "never".into())
    };
    keys.iter()
        .map(|k| {
            let state = if k.revoked_at.is_none() {
                "live"
            } else {
                "revoked"
            };
            format!(
                "{}\t{state}\tscope {}\tmade {} by {}\tlast used {}",
                k.name,
                k.scope.as_str(),
                at(Some(k.created_at)),
                k.created_by,
                at(k.last_used_at),
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
