//! The queue as a person sees it: sections (pending, uncertain, stopped, history), each
//! row with its timeline and the actions a person may take, and the counts for the tray.
//! Computed here, once, for every front end (the tray window renders it as it is; the
//! bridge serves it as `GET /v1/queue`). Times are ms since the Unix epoch.

use crate::ledger::{
    Event, EventKind, EvidenceKind, Glance, LedgerRead, PageAttachments, PageDestination,
    RemotePhase, RemoteStop, RowParts, Send, SendState, Shelf,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Longest text preview shown in a row, in characters.
pub const PREVIEW_CHARS: usize = 160;
/// Most of an answer a row carries (its first lines), in characters.
pub const ANSWER_CHARS: usize = 600;
/// History rows in the first page (newest first); older pages through [`history_page`].
pub const HISTORY_ROWS: usize = 200;
/// The most rows one page of History holds.
pub const MAX_HISTORY_PAGE: u32 = crate::ledger::MAX_PAGE - 1;

/// The sections, in the order they are shown.
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
    /// Queued, or claimed and not yet clicked: take it back (it becomes stopped).
    Withdraw,
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

/// One send as a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// The operation id.
    pub op_id: String,
    /// The first [`PREVIEW_CHARS`] characters of the text, whitespace folded.
    pub preview: String,
    /// The conversation it is meant for; `None`: see `destination`.
    pub conversation: Option<String>,
    /// Where it goes, in words ([`crate::destination::Destination::words`]: "a new chat",
    /// "conversation 6a1…", "a new chat in Project g-p-…", with the model it asks for);
    /// `None` for a send admitted before destinations (it went to whichever tab was leased).
    #[serde(default)]
    pub destination: Option<String>,
    /// The chat site it goes to (`chatgpt` for a send admitted before sites).
    #[serde(default)]
    pub site: crate::site::Site,
    /// Where the page's own request (or its answer's model) went instead of `destination`:
    /// the owner's `destination_mismatch: …` sentence, which the window shows in red. The
    /// send went out once and is never resent.
    #[serde(default)]
    pub mismatch: Option<String>,
    /// Current state.
    pub state: SendState,
    /// Which section it belongs to.
    pub section: Section,
    /// Its state in words for a person (see [`state_words`]).
    pub label: String,
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
    /// The stop of its answer a Stop asked the tab for (the send was already clicked);
    /// absent from owners before it was shown.
    #[serde(default)]
    pub remote_stop: Option<AnswerStop>,
    /// Why it is uncertain, in one line (what was recorded when it became uncertain).
    #[serde(default)]
    pub why: Option<String>,
    /// The start of the answer the page gave (at most [`ANSWER_CHARS`] characters), if seen.
    #[serde(default)]
    pub answer: Option<String>,
    /// The answer's generated files (`[]` when none): each wanted, stored (the window shows
    /// a thumbnail of an image and offers Save) or unavailable with its words.
    #[serde(default)]
    pub artifacts: Vec<crate::ledger::Artifact>,
    /// The audit trail, oldest first.
    pub timeline: Vec<Step>,
}

/// The stop of a clicked send's answer, as a person sees it on the send's row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerStop {
    /// pending → dispatched → confirmed | uncertain.
    pub phase: RemotePhase,
    /// The phase in words, with what the tab reported ([`answer_stop_words`]).
    pub words: String,
    /// When the phase last changed.
    pub updated_at: i64,
}

/// What became of the stop of a send's answer, as a sentence for a person.
pub fn answer_stop_words(rs: &RemoteStop) -> String {
    let said = crate::ledger::remote_said(rs.evidence.as_deref())
        .map(|e| format!(": {e}"))
        .unwrap_or_default();
    match rs.phase {
        RemotePhase::Pending => format!(
            "Stop of its answer: asked by {}, waiting for its tab to click the page's stop button",
            rs.requested_by
        ),
        RemotePhase::Dispatched => {
            "Stop of its answer: its tab is clicking the page's stop button".to_string()
        }
        RemotePhase::Confirmed => format!("Stop of its answer: done{said}"),
        RemotePhase::Uncertain => format!(
            "Stop of its answer: not known whether the answer stopped{said}; look at the conversation"
        ),
    }
}

/// Counts and the gate, for a window's header and the tray.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueStatus {
    /// Stop closed the gate (no new send or lease until a person resumes).
    pub gate_closed: bool,
    /// Sends in the Pending section.
    pub pending: i64,
    /// The same per site (`{"chatgpt": 2, "claude": 1}`; sites with none left out; empty
    /// from an owner before sites were counted): the tray says them when both have some.
    #[serde(default)]
    pub pending_by_site: std::collections::BTreeMap<crate::site::Site, i64>,
    /// Sends waiting for a person's decision.
    pub uncertain: i64,
    /// Stopped or rejected sends not yet queued again: all of them, however many (counted
    /// through the section's indexes, not from the rows the view holds).
    pub stopped: i64,
    /// Every send of the Stopped section, queued again or not: the section's count (the
    /// view holds the newest [`STOPPED_ROWS`]; older ones are paged).
    #[serde(default)]
    pub stopped_total: i64,
    /// What holds sends back, as a sentence, if anything: Stop, the page changed, or a
    /// site's own usage limit or missing tab, naming that site and the sites that go on
    /// when more than ChatGPT is in play ("Claude usage limit until 14:05 (…); ChatGPT
    /// sends go on"; `ledger::Holds`).
    pub waiting: Option<String>,
    /// The same in a few words ("no tab", "usage limit", "Claude limit", "no Claude tab"),
    /// for narrow places (the tray).
    #[serde(default)]
    pub waiting_words: Option<String>,
    /// Whether a chatgpt.com tab is leased (else the window shows the first-run guide).
    pub leased: bool,
    /// Who last stopped (gate closed) or resumed (open) sends; `None` before the first Stop.
    #[serde(default)]
    pub gate_by: Option<String>,
    /// When that was, in ms since the Unix epoch.
    #[serde(default)]
    pub gate_at: Option<i64>,
    /// The newest check of a tab's page (issue 35): each fact with its state and what the
    /// page showed; the window's tab line says [`QueueStatus::page_words`] and lists them.
    #[serde(default)]
    pub page_check: Option<crate::ledger::PageCheck>,
    /// That check in a few words: "page: 12 facts hold, 1 fails: composer.present".
    #[serde(default)]
    pub page_words: Option<String>,
}

/// Every section of the queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueView {
    /// Counts and gate.
    pub status: QueueStatus,
    /// Rows of the Pending section, oldest first (the order they will go out).
    pub pending: Vec<Row>,
    /// Rows needing a decision, oldest first.
    pub uncertain: Vec<Row>,
    /// Stopped or rejected rows, newest first, at most [`STOPPED_ROWS`] (older:
    /// [`stopped_page`]).
    pub stopped: Vec<Row>,
    /// When older stopped or rejected sends exist: the operation id to read the next page
    /// `before` ([`stopped_page`], `GET /v1/queue/stopped?before=`).
    #[serde(default)]
    pub stopped_next: Option<String>,
    /// Settled rows, newest first, at most [`HISTORY_ROWS`].
    pub history: Vec<Row>,
    /// When older settled sends exist: the operation id to read the next page of History
    /// `before` ([`history_page`], `GET /v1/queue/history?before=`).
    #[serde(default)]
    pub history_next: Option<String>,
}

/// Which section a send belongs to: the one rule, for every front end.
pub fn section_of(send: &Send) -> Section {
    if send.holds_slot() {
        return Section::Pending;
    }
    match send.state {
        SendState::Queued | SendState::Claimed | SendState::Dispatched => Section::Pending,
        SendState::Uncertain => Section::Uncertain,
        SendState::Stopped | SendState::Rejected => Section::Stopped,
        SendState::Accepted
        | SendState::Completed
        | SendState::Confirmed
        | SendState::Abandoned
        | SendState::PageError => Section::History,
    }
}

/// The whole queue, as committed now: every pending and uncertain send, the newest
/// [`STOPPED_ROWS`] stopped or rejected ones (older: [`stopped_page`]), and the
/// newest [`HISTORY_ROWS`] settled ones (older: [`history_page`]). Each part is read
/// through its own index: the cost follows what is live, not the length of the history.
pub fn queue_view(src: &impl LedgerRead) -> crate::ledger::Result<QueueView> {
    let rows_on = |shelf: Shelf| rows_of(src, src.shelf(&shelf)?);
    let pending = rows_on(Shelf::Pending)?;
    let uncertain = rows_on(Shelf::Uncertain)?;
    let stopped_page = stopped_page(src, None, STOPPED_ROWS as u32)?;
    let stopped = stopped_page.rows;
    let page = history_page(src, None, HISTORY_ROWS as u32)?;
    let status = status_of(
        &src.glance()?,
        pending.len() as i64,
        uncertain.len() as i64,
        src.stopped_counts()?,
    );
    Ok(QueueView {
        status,
        pending,
        uncertain,
        stopped,
        history: page.rows,
        history_next: page.next,
        stopped_next: stopped_page.next,
    })
}

/// How many stopped or rejected rows the queue view holds (issue 39: a heavy user's year
/// holds tens of thousands, and building each row costs; older ones are paged).
pub const STOPPED_ROWS: usize = 200;

/// Stopped or rejected sends older than `before` (an operation id; `None`: from the
/// newest), newest first, at most `limit` (capped as [`history_page`]'s).
pub fn stopped_page(
    src: &impl LedgerRead,
    before: Option<String>,
    limit: u32,
) -> crate::ledger::Result<HistoryPage> {
    let limit = limit.clamp(1, MAX_HISTORY_PAGE);
    let sends = src.shelf(&Shelf::StoppedPage {
        before,
        limit: limit + 1,
    })?;
    page_of(src, sends, limit)
}

fn page_of(
    src: &impl LedgerRead,
    mut sends: Vec<Send>,
    limit: u32,
) -> crate::ledger::Result<HistoryPage> {
    let more = sends.len() > limit as usize;
    sends.truncate(limit as usize);
    let next = more
        .then(|| sends.last().map(|s| s.op_id.clone()))
        .flatten();
    Ok(HistoryPage {
        rows: rows_of(src, sends)?,
        next,
    })
}

/// One page of History: settled sends, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryPage {
    /// At most the `limit` asked for, newest first.
    pub rows: Vec<Row>,
    /// The operation id to ask the next (older) page `before`, when older settled sends exist.
    pub next: Option<String>,
}

/// Settled sends older than `before` (an operation id; `None`: from the newest), newest
/// first, at most `limit` (capped at [`crate::ledger::MAX_PAGE`]).
pub fn history_page(
    src: &impl LedgerRead,
    before: Option<String>,
    limit: u32,
) -> crate::ledger::Result<HistoryPage> {
    let limit = limit.clamp(1, MAX_HISTORY_PAGE);
    let sends = src.shelf(&Shelf::Settled {
        before,
        limit: limit + 1,
    })?;
    page_of(src, sends, limit)
}

/// Counts and gate without building rows (for the tray and the feed).
pub fn queue_status(src: &impl LedgerRead) -> crate::ledger::Result<QueueStatus> {
    let pending = src.shelf(&Shelf::Pending)?.len() as i64;
    let uncertain = src.shelf(&Shelf::Uncertain)?.len() as i64;
    let stopped = src.stopped_counts()?;
    Ok(status_of(&src.glance()?, pending, uncertain, stopped))
}

/// The rows of `op_ids` and of the sends they queue again, as they are now (ids that name
/// no send are left out).
pub fn rows(src: &impl LedgerRead, op_ids: BTreeSet<String>) -> crate::ledger::Result<Vec<Row>> {
    let mut sends = Vec::new();
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = op_ids.into_iter().collect();
    while let Some(id) = todo.pop() {
        if !seen.insert(id.clone()) {
            continue;
        }
        if let Some(send) = src.get(&id)? {
            if let Some(old) = &send.resend_of {
                todo.push(old.clone());
            }
            sends.push(send);
        }
    }
    // Newest first.
    sends.sort_by_key(|s| std::cmp::Reverse(s.created_at));
    rows_of(src, sends)
}

/// The rows of `sends`, in their order: what each shows beside the send read for all of
/// them at once ([`LedgerRead::row_parts`], one query a part, however many rows).
fn rows_of(src: &impl LedgerRead, sends: Vec<Send>) -> crate::ledger::Result<Vec<Row>> {
    let parts = src.row_parts(&sends)?;
    let waiting = src.waiting_sentences(&sends)?;
    Ok(sends
        .into_iter()
        .zip(parts)
        .zip(waiting)
        .map(|((send, parts), waiting)| row_of(send, parts, waiting))
        .collect())
}

/// `stopped`: the Stopped section's `(all, not yet queued again)`.
fn status_of(
    glance: &Glance,
    pending: i64,
    uncertain: i64,
    (stopped_total, stopped): (i64, i64),
) -> QueueStatus {
    QueueStatus {
        gate_closed: glance.gate_closed,
        pending,
        pending_by_site: glance.pending_by_site.clone(),
        uncertain,
        stopped,
        stopped_total,
        waiting: glance.waiting_sentence.clone(),
        waiting_words: glance.waiting_words.clone(),
        leased: glance.leased,
        gate_by: glance.gate_changed.as_ref().map(|(by, _)| by.clone()),
        gate_at: glance.gate_changed.as_ref().map(|(_, at)| *at),
        page_words: glance
            .page_check
            .as_ref()
            .map(|c| format!("page: {}", c.summary())),
        page_check: glance.page_check.clone(),
    }
}

/// What a person may do with `send`'s row in `section` (`queued_again`: a person already
/// queued it again).
fn actions_of(send: &Send, section: Section, queued_again: bool) -> Vec<Action> {
    match section {
        Section::Pending if matches!(send.state, SendState::Queued | SendState::Claimed) => {
            vec![Action::Withdraw]
        }
        Section::Uncertain => vec![Action::Confirm, Action::Abandon, Action::Resend],
        Section::Stopped if !queued_again => vec![Action::QueueAgain],
        // The page said no (an error turn): a person may queue it again.
        Section::History if send.state == SendState::PageError && !queued_again => {
            vec![Action::QueueAgain]
        }
        _ => Vec::new(),
    }
}

/// `waiting`: why it waits, as a sentence ([`LedgerRead::waiting_sentences`]).
fn row_of(send: Send, parts: RowParts, waiting: Option<String>) -> Row {
    let RowParts {
        timeline,
        queued_again_as,
        destination,
        title,
        page_attachments,
        page_destination,
        artifacts,
        remote_stop,
    } = parts;
    let section = section_of(&send);
    let observed = timeline
        .iter()
        .rev()
        .find(|e| e.evidence_kind == Some(EvidenceKind::Observed))
        .and_then(|e| e.evidence.clone());
    let actions = actions_of(&send, section, queued_again_as.is_some());
    let why = (send.state == SendState::Uncertain)
        .then(|| {
            timeline
                .iter()
                .rev()
                .find(|e| e.kind == EventKind::Transition && e.to == SendState::Uncertain)
                .and_then(|e| e.evidence.clone())
        })
        .flatten();
    let answer = send.answer.as_ref().map(|a| excerpt(&a.text));
    let (destination, site) = match destination {
        Some(d) => (Some(d.words_titled(title.as_deref())), d.site),
        None => (None, crate::site::Site::default()),
    };
    let mismatch = mismatch_words(page_attachments, page_destination, &timeline);
    let remote_stop = remote_stop.map(|rs| AnswerStop {
        phase: rs.phase,
        words: answer_stop_words(&rs),
        updated_at: rs.updated_at,
    });
    Row {
        label: state_words(&send).to_string(),
        preview: preview(&send.text),
        op_id: send.op_id,
        conversation: send.conversation_id,
        destination,
        site,
        mismatch,
        state: send.state,
        section,
        created_at: send.created_at,
        updated_at: send.updated_at,
        resend_of: send.resend_of,
        queued_again_as,
        observed,
        notified_at: send.notified_at,
        waiting,
        actions,
        remote_stop,
        why,
        answer,
        artifacts,
        timeline: timeline.into_iter().map(Into::into).collect(),
    }
}

/// The send's `destination_mismatch` sentence: the one recorded with the page's request,
/// else the owner's note about the answer's model — and the `attachment_mismatch`
/// sentence when the request did not carry the send's files (both, joined, when both) (a note the owner wrote, never a person's
/// evidence that happens to start alike). `timeline`: the send's events. What the window's
/// row and the OpenAI doors report.
pub fn mismatch_of(
    src: &impl LedgerRead,
    op_id: &str,
    timeline: &[Event],
) -> crate::ledger::Result<Option<String>> {
    Ok(mismatch_words(
        src.page_attachments(op_id)?,
        src.page_destination(op_id)?,
        timeline,
    ))
}

/// [`mismatch_of`] from what the page's request showed (its files, its destination) and
/// the send's timeline.
fn mismatch_words(
    files: Option<PageAttachments>,
    place: Option<PageDestination>,
    timeline: &[Event],
) -> Option<String> {
    let files = files.and_then(|p| p.mismatch);
    let place = match place.and_then(|p| p.mismatch) {
        Some(why) => Some(why),
        None => timeline
            .iter()
            .find(|e| {
                e.kind == EventKind::Note
                    && e.actor == "owner"
                    && e.note_kind == Some(crate::ledger::NoteKind::DestinationMismatch)
            })
            .and_then(|e| e.evidence.clone()),
    };
    match (place, files) {
        (Some(p), Some(f)) => Some(format!("{p}; {f}")),
        (p, f) => p.or(f),
    }
}

/// The first [`ANSWER_CHARS`] characters of an answer, its lines kept.
fn excerpt(text: &str) -> String {
    if text.chars().count() <= ANSWER_CHARS {
        text.trim().to_string()
    } else {
        let cut: String = text.chars().take(ANSWER_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    }
}

/// A send's state in words for a person: what it means for the message.
pub fn state_words(send: &Send) -> &'static str {
    match send.state {
        SendState::Queued => "queued",
        SendState::Claimed => "handed to the browser",
        SendState::Dispatched => "clicked, waiting for the page",
        SendState::Accepted if send.holds_slot() => "accepted, waiting for the answer",
        SendState::Accepted => "accepted (answer not seen)",
        SendState::Completed => "answered",
        SendState::Rejected => "never left this computer",
        SendState::Uncertain => "uncertain",
        SendState::Stopped => "stopped",
        SendState::Confirmed => "confirmed sent",
        SendState::Abandoned => "abandoned",
        SendState::PageError => "the page said no",
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
