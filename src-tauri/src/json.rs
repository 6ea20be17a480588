//! The shapes the queue window sees: the only place the app turns the core's records into
//! transport shapes (DTOs). Times are ms since the Unix epoch.

use sendledger::ledger::{Event, EventKind, SendState, Status as LedgerStatus};
use serde::{Deserialize, Serialize};

/// Longest text preview shown in a row, in characters.
pub const PREVIEW_CHARS: usize = 160;
/// History rows shown (newest first).
pub const HISTORY_ROWS: usize = 200;

/// The window's sections, in the order they are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    /// Queued, claimed, dispatched, or accepted and awaiting the answer.
    Pending,
    /// It may or may not have been sent: a person decides.
    Uncertain,
    /// Stopped before dispatch, or rejected (never left the host): may be queued again.
    Stopped,
    /// Settled: completed, accepted without an observed answer, confirmed, abandoned.
    History,
}

/// What a person may do with a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Uncertain: it was sent.
    Confirm,
    /// Uncertain: treat it as not sent.
    Abandon,
    /// Uncertain: abandon it and queue the same text as a new operation.
    Resend,
    /// Stopped or rejected: queue again as a new operation linked to it.
    QueueAgain,
}

/// One step of a send's audit trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// When.
    pub at: i64,
    /// State before; `None` for the admission.
    pub from: Option<SendState>,
    /// State after.
    pub to: SendState,
    /// Whether the state changed (`false`: a note).
    pub transition: bool,
    /// Who.
    pub actor: String,
    /// On what evidence.
    pub evidence: Option<String>,
}

impl From<Event> for Step {
    fn from(e: Event) -> Self {
        Step {
            at: e.at,
            from: e.from,
            to: e.to,
            transition: e.kind == EventKind::Transition,
            actor: e.actor,
            evidence: e.evidence,
        }
    }
}

/// One send as a row of the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// The operation id.
    pub op_id: String,
    /// The first [`PREVIEW_CHARS`] characters of the text, whitespace folded.
    pub preview: String,
    /// The conversation it is meant for; `None`: whichever tab is leased.
    pub conversation: Option<String>,
    /// Current state.
    pub state: SendState,
    /// Which section it belongs to.
    pub section: Section,
    /// When it was queued.
    pub created_at: i64,
    /// When it last changed.
    pub updated_at: i64,
    /// The operation this one resends or queues again.
    pub resend_of: Option<String>,
    /// The operation that queued this one again, once a person did.
    pub queued_again_as: Option<String>,
    /// Evidence the owner observed for an uncertain send (a suggestion, not a decision).
    pub observed: Option<String>,
    /// When a person was notified that it is uncertain.
    pub notified_at: Option<i64>,
    /// Why a queued send waits, as a sentence (usage limit, no usable tab, another send).
    pub waiting: Option<String>,
    /// What a person may do now.
    pub actions: Vec<Action>,
    /// The audit trail, oldest first.
    pub timeline: Vec<Step>,
}

/// Counts and the gate, for the window's header and the tray.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// Stop closed the gate (no new send or lease until a person resumes).
    pub gate_closed: bool,
    /// Sends in the Pending section.
    pub pending: i64,
    /// Sends waiting for a person's decision.
    pub uncertain: i64,
    /// Stopped or rejected sends not yet queued again.
    pub stopped: i64,
    /// Why nothing goes out, as a sentence (usage limit, no usable tab), if anything.
    pub waiting: Option<String>,
    /// Whether a chatgpt.com tab is leased (else the window shows the first-run guide).
    pub leased: bool,
}

/// Which tray icon shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrayState {
    /// Nothing needs a person.
    Normal,
    /// At least one send is uncertain (shown even while stopped: it needs a decision).
    NeedsAttention,
    /// Stop closed the gate.
    Stopped,
}

impl Status {
    /// Attention first (a decision is waiting), then a closed gate.
    pub fn tray_state(&self) -> TrayState {
        if self.uncertain > 0 {
            TrayState::NeedsAttention
        } else if self.gate_closed {
            TrayState::Stopped
        } else {
            TrayState::Normal
        }
    }

    /// One line for the tray's tooltip and menu: counts and the gate.
    pub fn summary(&self) -> String {
        let gate = if self.gate_closed {
            "sends stopped"
        } else {
            "sending allowed"
        };
        let mut line = format!(
            "{} pending · {} uncertain · {} stopped · {gate}",
            self.pending, self.uncertain, self.stopped
        );
        if let Some(why) = &self.waiting {
            line.push_str(&format!(" · {why}"));
        }
        line
    }

    /// From the ledger's status and the rows' sections.
    pub fn from_ledger(status: &LedgerStatus, pending: i64, stopped: i64) -> Self {
        Status {
            gate_closed: status.gate_closed,
            pending,
            uncertain: status
                .counts
                .get(&SendState::Uncertain)
                .copied()
                .unwrap_or(0),
            stopped,
            waiting: status.waiting_sentence.clone(),
            leased: !status.lease_epochs.is_empty(),
        }
    }
}

/// Everything the window shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Counts and gate.
    pub status: Status,
    /// The OS user: the default "who" of a person's decision.
    pub who: String,
    /// Rows of the Pending section, oldest first (the order they will go out).
    pub pending: Vec<Row>,
    /// Rows needing a decision, oldest first.
    pub uncertain: Vec<Row>,
    /// Stopped or rejected rows, newest first.
    pub stopped: Vec<Row>,
    /// Settled rows, newest first, at most [`HISTORY_ROWS`].
    pub history: Vec<Row>,
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
}

/// The app's settings as the window edits them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Notify about an uncertain send unresolved this long, in ms (≥ 1,000).
    pub stale_uncertain_ms: i64,
    /// Start the app (in the tray, window closed) when the person logs in.
    pub autostart: bool,
}

/// A refusal the window shows as it is: what happened and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The message.
    pub message: String,
}

impl<E: std::fmt::Display> From<E> for Refusal {
    fn from(e: E) -> Self {
        Refusal {
            message: e.to_string(),
        }
    }
}

/// Folds whitespace and cuts the text at [`PREVIEW_CHARS`] characters.
pub fn preview(text: &str) -> String {
    let folded: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= PREVIEW_CHARS {
        folded
    } else {
        let cut: String = folded.chars().take(PREVIEW_CHARS - 1).collect();
        format!("{cut}…")
    }
}
