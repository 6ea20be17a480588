//! Why nothing goes out: for the profile (`status`, the tray, the window's header) and
//! for one queued send (`show`, the window's row) — from the first second, read from the
//! ledger alone, so a read-only reader says the same as the owner.

use super::in_flight;
use super::limit_gate;
use super::local_time::local_time;
use super::page_gate;
use super::read::{self, cached_row};
use super::record::Send;
use super::state::SendState;
use super::tab_reports;
use crate::clock::Millis;
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

/// Why sends are held back. `Display` is the sentence a person reads, with what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Waiting {
    /// Stop closed the gate.
    Stopped,
    /// The page changed: a fact every send needs did not hold in a tab (or the page's
    /// stream could not be read), so the page gate closed until a person resumes.
    PageChanged {
        /// The page contract's fact (`composer.present`).
        fact_id: String,
        /// The tab that reported it, when a tab did.
        tab_id: Option<String>,
    },
    /// The page answered with the account's usage limit.
    UsageLimit {
        /// When sending resumes by itself (ms); `None`: when a person resumes.
        until_ms: Option<Millis>,
        /// The page's own message.
        message: Option<String>,
    },
    /// Another send is in flight in the conversation this one goes to (one at a time in
    /// a conversation).
    InFlight {
        /// That send.
        op_id: String,
    },
    /// As many sends are in flight as the profile's `max_in_flight` lets go at once.
    AtCap {
        /// The cap (`max_in_flight`).
        max: u32,
    },
    /// Every leased tab that could take this send has a send of its own in flight.
    TabsBusy {
        /// The oldest send in flight.
        op_id: String,
    },
    /// A leased tab shows the send's conversation and is free, so the send is left to it;
    /// it is taken as soon as that tab asks. A tab that stopped answering is let go after
    /// [`super::Bounds::lease_silence_ms`], and another tab then takes the send.
    TabToTake {
        /// The tab that shows the conversation.
        tab_id: String,
    },
    /// No tab is leased, and a chatgpt.com tab said why it cannot take a send.
    TabCannotTakeSends {
        /// The tab.
        tab_id: String,
        /// What it said.
        reason: String,
    },
    /// No chatgpt.com tab is leased at all.
    NoTab,
}

impl Waiting {
    /// A few words for a narrow place (the tray's menu): "stopped", "usage limit", "no tab",
    /// "tab can't send", "sending", "no tab for its chat". The sentence says the rest.
    pub fn words(&self) -> &'static str {
        match self {
            Waiting::Stopped => "stopped",
            Waiting::PageChanged { .. } => "page changed",
            Waiting::UsageLimit { .. } => "usage limit",
            Waiting::InFlight { .. } | Waiting::AtCap { .. } | Waiting::TabsBusy { .. } => {
                "sending"
            }
            Waiting::TabToTake { .. } => "waiting for its tab",
            Waiting::TabCannotTakeSends { .. } => "tab can't send",
            Waiting::NoTab => "no tab",
        }
    }

    /// The sentence, with local times relative to `now`.
    pub fn sentence(&self, now: Millis) -> String {
        match self {
            Waiting::Stopped => {
                "stopped: nothing is sent until a person resumes (`sendledger resume --by WHO`)"
                    .into()
            }
            Waiting::PageChanged { fact_id, tab_id } => format!(
                "the page changed: {} did not recognise page fact {fact_id}, which every send needs, so nothing is sent and nothing is typed; update the extension, or reload the chatgpt.com tab and run Check this page, then resume (Resume in the window or tray, or `sendledger resume --by WHO`)",
                tab_id.as_deref().map_or_else(|| "the owner".to_string(), |t| format!("tab {t}"))
            ),
            Waiting::UsageLimit { until_ms: Some(t), .. } => format!(
                "ChatGPT usage limit: sending resumes at {} (or now: `sendledger resume --by WHO`)",
                local_time(*t, now)
            ),
            // A refusal that holds until a person resumes (a 403 "Unusual activity", a 431)
            // is said with the page's own words, not called a usage limit.
            Waiting::UsageLimit {
                until_ms: None,
                message: Some(words),
            } => format!(
                "ChatGPT said no (\"{words}\"), naming no time: sending resumes when a person resumes (`sendledger resume --by WHO`)"
            ),
            Waiting::UsageLimit { until_ms: None, .. } => {
                "ChatGPT usage limit: the page named no reset time; sending resumes when a person resumes (`sendledger resume --by WHO`)".into()
            }
            Waiting::InFlight { op_id } => format!(
                "waiting for send {op_id}, in flight in the same conversation (one send at a time in a conversation)"
            ),
            Waiting::AtCap { max } => format!(
                "waiting: {max} of {max} sends are in flight, as many as max_in_flight lets go at once (raise it in the window's settings or config.json)"
            ),
            Waiting::TabsBusy { op_id } => format!(
                "waiting: every leased tab that can take it has a send in flight (oldest {op_id}); open another chatgpt.com tab, or wait"
            ),
            Waiting::TabToTake { tab_id } => format!(
                "waiting for tab {tab_id}, which shows its conversation, to take it; a tab that stops answering (closed, crashed, asleep) is let go after {} s, and another chatgpt.com tab then takes the send",
                super::Bounds::default().lease_silence_ms / 1000
            ),
            Waiting::TabCannotTakeSends { tab_id, reason } => {
                format!("no chatgpt.com tab can take a send: tab {tab_id}: {reason}")
            }
            Waiting::NoTab => "no chatgpt.com tab is leased: open chatgpt.com in the browser where the sendledger extension is paired (`sendledger pair` gives a code)".into(),
        }
    }
}

fn leased_conversations(conn: &Connection) -> rusqlite::Result<Vec<Option<String>>> {
    let mut stmt =
        conn.prepare_cached("SELECT conversation_id FROM leases WHERE ended_at IS NULL")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    rows.collect()
}

/// Why nothing can go out for the whole profile at `now`, if anything holds it back.
pub(crate) fn for_profile(conn: &Connection, now: Millis) -> rusqlite::Result<Option<Waiting>> {
    let closed: i64 = conn.query_row("SELECT closed FROM gate WHERE id = 1", [], |r| r.get(0))?;
    if closed == 1 {
        return Ok(Some(Waiting::Stopped));
    }
    let page = page_gate::get(conn)?;
    if page.closed {
        return Ok(Some(Waiting::PageChanged {
            fact_id: page.fact_id.unwrap_or_default(),
            tab_id: page.tab_id,
        }));
    }
    let gate = limit_gate::get(conn)?;
    if gate.holds_at(now) {
        return Ok(Some(Waiting::UsageLimit {
            until_ms: gate.until_ms,
            message: gate.reason,
        }));
    }
    if leased_conversations(conn)?.is_empty() {
        let report = tab_reports::list(conn)?.into_iter().next();
        return Ok(Some(match report {
            Some(r) => Waiting::TabCannotTakeSends {
                tab_id: r.tab_id,
                reason: r.reason,
            },
            None => Waiting::NoTab,
        }));
    }
    Ok(None)
}

/// Why the queued send `send` waits at `now`; `None` when it is not queued or nothing
/// holds it back (it is about to be claimed).
pub(crate) fn for_send(
    conn: &Connection,
    send: &Send,
    now: Millis,
) -> rusqlite::Result<Option<Waiting>> {
    if send.state != SendState::Queued {
        return Ok(None);
    }
    if let Some(w) = for_profile(conn, now)? {
        return Ok(Some(w));
    }
    if let Some(c) = &send.conversation_id {
        if let Some(op_id) = in_flight::in_conversation(conn, c, None)? {
            return Ok(Some(Waiting::InFlight { op_id }));
        }
    }
    let max = in_flight::cap(conn)?;
    if in_flight::count(conn)? >= max {
        return Ok(Some(Waiting::AtCap { max }));
    }
    // A send for a conversation no leased tab shows is not held back: a leased tab takes
    // it and goes there (docs/extension.md, "The tab goes to the destination").
    if let Some(op_id) = tabs_busy(conn, send)? {
        return Ok(Some(Waiting::TabsBusy { op_id }));
    }
    Ok(showing_tab(conn, send)?.map(|tab_id| Waiting::TabToTake { tab_id }))
}

/// The leased tab that shows the conversation `send` names, when one does: the send is
/// left to it (`in_flight::next_for`).
fn showing_tab(conn: &Connection, send: &Send) -> rusqlite::Result<Option<String>> {
    let Some(c) = &send.conversation_id else {
        return Ok(None);
    };
    cached_row(
        conn,
        "SELECT tab_id FROM leases WHERE ended_at IS NULL AND conversation_id = ?1 \
         AND generation = (SELECT generation FROM gate WHERE id = 1) \
         ORDER BY created_at DESC LIMIT 1",
        [c],
        |r| r.get(0),
    )
    .optional()
}

/// The oldest send in flight when every leased tab that fits `send` (shows its
/// conversation; any tab for a send naming none, or naming one no leased tab shows) has a
/// send in flight, or shows a conversation another send is in flight in.
fn tabs_busy(conn: &Connection, send: &Send) -> rusqlite::Result<Option<String>> {
    let free: bool = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM leases l WHERE l.ended_at IS NULL \
               AND (?1 IS NULL OR l.conversation_id = ?1 OR NOT EXISTS (SELECT 1 FROM leases o \
                    WHERE o.ended_at IS NULL AND o.conversation_id = ?1)) \
               AND NOT EXISTS (SELECT 1 FROM in_flight_places p WHERE p.tab_id = l.tab_id \
                   OR p.conversation_id = COALESCE(?1, l.conversation_id)))",
        )?
        .query_row([send.conversation_id.as_deref()], |r| r.get(0))?;
    if free {
        return Ok(None);
    }
    read::in_flight(conn)
}
