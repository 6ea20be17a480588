//! The shapes the queue window sees: the only place the app turns the core's records into
//! transport shapes (DTOs). Times are ms since the Unix epoch.

use serde::{Deserialize, Serialize};

pub use sendledger::ledger::ApiKey;

pub use sendledger::api::queue::{
    preview, Action, HistoryPage, QueueStatus as Status, Row, Section, Step, HISTORY_ROWS,
    PREVIEW_CHARS,
};

/// Everything the window shows: the core's queue view and who is at the keyboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The OS user: the default "who" of a person's decision.
    pub who: String,
    /// Where the browser extension's folder is (the first-run guide shows it), if found.
    pub extension_dir: Option<String>,
    /// Where a send that names no place goes, in words ("a new chat"); `None` when the
    /// profile's `config.json` cannot be read (the settings say why).
    pub default_destination: Option<String>,
    /// Counts, gate and every section, computed in the core (`sendledger::api::queue`).
    #[serde(flatten)]
    pub view: sendledger::api::queue::QueueView,
}

/// A one-time pairing code for the extension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// `XXXX-XXXX`.
    pub code: String,
    /// When it stops working.
    pub expires_at: i64,
}

/// Something the tray asked the window to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "intent", rename_all = "snake_case")]
pub enum Intent {
    /// Ask the person to confirm Resume (with who).
    Resume,
    /// Show a pairing code.
    Pair(Pairing),
}

/// What is pushed to the window over its channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Update {
    /// The whole queue (after subscribing, or when changes were missed).
    Snapshot(Snapshot),
    /// Rows that changed, with the new counts.
    Changed { status: Status, rows: Vec<Row> },
    /// The tray asked for something.
    Intent(Intent),
    /// The tray ended without quitting (killed, crashed): nothing is sent or watched until
    /// it starts again; the window says so and offers to start it (`start_tray`). Its
    /// return is the next [`Update::Snapshot`].
    TrayGone,
}

/// The app's settings as the window edits them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Notify about an uncertain send unresolved this long, in ms (≥ 1,000).
    pub stale_uncertain_ms: i64,
    /// Start the app (in the tray, window closed) when the person logs in.
    pub autostart: bool,
    /// How many sends may be in flight at once, each in its own conversation and tab
    /// (1 to 8; the profile's `config.json`). Absent when saving: unchanged.
    #[serde(default)]
    pub max_in_flight: Option<i64>,
    /// Where a send that names no place goes (the profile's `config.json`). Absent when
    /// saving: unchanged.
    #[serde(default)]
    pub default_destination: Option<DefaultPlace>,
}

/// The default destination as the window edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefaultPlace {
    /// `new_chat` (a new chat each time), `conversation` or `project`.
    pub place: String,
    /// The conversation's or Project's id or chatgpt.com URL (none for a new chat).
    #[serde(default)]
    pub id: Option<String>,
    /// In words, as the header shows it (read only: ignored when saving).
    #[serde(default)]
    pub words: String,
}

/// The Connect panel: how a companion (OpenAI API) or an agent (MCP) reaches this owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connect {
    /// `http://127.0.0.1:<bridge port>/v1`, the live bridge of this owner.
    pub base_url: String,
    /// The `mcpServers` entry that launches `sendledger mcp` on this profile (pretty JSON).
    pub mcp_config: String,
    /// Every named key, newest first (revoked ones included; never a secret).
    pub keys: Vec<ApiKey>,
    /// `user@host` of this machine, for the `ssh -L` line another machine runs (issue 38).
    pub ssh_target: String,
}

/// A key just made: the one answer that carries its secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MadeKey {
    /// The key as listed.
    pub key: ApiKey,
    /// `sk-sl-` and 64 hex digits; shown once, stored nowhere (the profile keeps its hash).
    pub secret: String,
}

impl std::fmt::Debug for MadeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MadeKey")
            .field("key", &self.key)
            .field("secret", &"<hidden>")
            .finish()
    }
}

/// A refusal the window shows as it is: what happened and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The stable code when the owner or the client gave one (`epoch_stopped`,
    /// `owner_unreachable`, … — docs/bridge-api.md): the window tells refusals apart by it,
    /// never by the sentence. Absent for the window's own refusals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The message.
    pub message: String,
}

impl Refusal {
    /// A refusal of the window's own, without a code.
    pub fn said(message: impl Into<String>) -> Refusal {
        Refusal {
            code: None,
            message: message.into(),
        }
    }

    /// A refusal that keeps `code`.
    pub fn coded(code: impl Into<String>, message: impl Into<String>) -> Refusal {
        Refusal {
            code: Some(code.into()),
            message: message.into(),
        }
    }
}

/// The client's failure keeps its code.
pub fn from_client(e: sendledger::client::ClientError) -> Refusal {
    Refusal::coded(e.code(), e.to_string())
}

impl<E: std::fmt::Display> From<E> for Refusal {
    fn from(e: E) -> Self {
        Refusal::said(e.to_string())
    }
}

/// The largest image the window previews as a thumbnail, in bytes (8 MiB): the bytes travel
/// to the window as a `data:` URL.
pub const PREVIEW_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// A thumbnail's source: `data:<mime>;base64,<bytes>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preview {
    /// The `data:` URL.
    pub data_url: String,
}

impl Preview {
    /// The `data:` URL of `bytes` of type `mime`.
    pub fn of(mime: &str, bytes: &[u8]) -> Preview {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        Preview {
            data_url: format!("data:{mime};base64,{b64}"),
        }
    }
}

/// Where a generated file was saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Saved {
    /// The new file's path.
    pub path: String,
}
