//! The profile at a glance: [`Status`] (`sendledger status`, `GET /v1/status`) and
//! [`Glance`] (the queue's header), read alike by the owner and a read-only reader.

use super::epochs;
use super::holds::{self, Holds};
use super::limit_gate::{self, LimitGate};
use super::page_gate::{self, PageGate};
use super::rows::in_flight;
use super::state::SendState;
use super::tab_reports::{self, TabReport};
use super::waiting::Waiting;
use crate::clock::Millis;
use crate::site::Site;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The profile at a glance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// Whether Stop closed the gate (no new send or lease until a person resumes).
    pub gate_closed: bool,
    /// How many times a person resumed (part of every epoch).
    pub generation: i64,
    /// Epoch of sends queued while no tab is leased.
    pub unbound_epoch: String,
    /// Epochs of the active leases, newest first.
    pub lease_epochs: Vec<String>,
    /// Number of sends per state (every state listed, zeros included).
    pub counts: BTreeMap<SendState, i64>,
    /// The oldest send in flight, if any.
    pub in_flight: Option<String>,
    /// How many sends may be in flight at once (`max_in_flight`, 1 to 8): at most one in a
    /// conversation and one in a tab.
    #[serde(default = "one")]
    pub max_in_flight: u32,
    /// Stopped epochs on record.
    pub stopped_epochs: i64,
    /// Tool-call receipts retained (not archived), out of 1,000.
    pub tool_receipts_retained: i64,
    /// Remote stops not yet confirmed or uncertain.
    pub remote_stops_open: i64,
    /// The limit gate while it holds sends back (a page's usage limit).
    pub limit_gate: Option<LimitGate>,
    /// The page-changed gate while it is closed: the fact, the tab, when (issue 35).
    #[serde(default)]
    pub page_gate: Option<PageGate>,
    /// Tabs that said they cannot take a send, newest first.
    pub tab_reports: Vec<TabReport>,
    /// The newest check of each tab's page, newest first (issue 35, Check this page).
    #[serde(default)]
    pub page_checks: Vec<super::PageCheck>,
    /// What holds sends back: the first of [`Status::holds`] (Stop, the page changed, or a
    /// site's own usage limit or missing tab), if anything does.
    pub waiting: Option<Waiting>,
    /// Every hold, site by site, and the sites whose sends go on meanwhile; `None` when
    /// nothing holds sends back.
    #[serde(default)]
    pub holds: Option<Holds>,
    /// [`Status::holds`] as the sentence a person reads (local times), naming the held
    /// site and the sites that go on when more than ChatGPT is in play.
    pub waiting_sentence: Option<String>,
    /// Sends in the Pending section per site (sites with none left out).
    #[serde(default)]
    pub pending_by_site: BTreeMap<Site, i64>,
}

fn one() -> u32 {
    1
}

pub(crate) fn status(conn: &Connection, now: Millis) -> rusqlite::Result<Status> {
    let (closed, generation): (i64, i64) = conn.query_row(
        "SELECT closed, generation FROM gate WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let counts = super::counts::by_state(conn)?;
    let holds = holds::for_profile(conn, now)?;
    let mut stmt = conn.prepare_cached(
        "SELECT epoch FROM leases WHERE ended_at IS NULL ORDER BY created_at DESC, rowid DESC",
    )?;
    let lease_epochs = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(Status {
        gate_closed: closed == 1,
        generation,
        unbound_epoch: epochs::unbound_epoch(generation),
        lease_epochs,
        counts,
        in_flight: in_flight(conn)?,
        max_in_flight: super::in_flight::cap(conn)?,
        stopped_epochs: conn.query_row("SELECT count(*) FROM stopped_epochs", [], |r| r.get(0))?,
        tool_receipts_retained: conn.query_row(
            "SELECT count(*) FROM tool_calls WHERE archived_at IS NULL",
            [],
            |r| r.get(0),
        )?,
        remote_stops_open: conn.query_row(
            "SELECT count(*) FROM remote_stops WHERE phase IN ('pending', 'dispatched')",
            [],
            |r| r.get(0),
        )?,
        limit_gate: Some(limit_gate::get(conn)?).filter(|g| g.holds_at(now)),
        page_gate: Some(page_gate::get(conn)?).filter(|g| g.closed),
        tab_reports: tab_reports::list(conn)?,
        page_checks: super::page_checks::latest_per_tab(conn)?,
        waiting_sentence: holds.as_ref().map(|h| h.sentence(now)),
        waiting: holds.as_ref().map(|h| h.first().clone()),
        holds,
        pending_by_site: super::sections::pending_by_site(conn)?,
    })
}

/// What the queue's header needs of the profile: [`Status`] without counting every send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Glance {
    /// Whether Stop closed the gate.
    pub gate_closed: bool,
    /// Why nothing goes out, as the sentence a person reads (local times), if anything.
    pub waiting_sentence: Option<String>,
    /// The same in a few words ([`Holds::words`]: "usage limit", "Claude limit").
    pub waiting_words: Option<String>,
    /// Sends in the Pending section per site (sites with none left out).
    #[serde(default)]
    pub pending_by_site: BTreeMap<Site, i64>,
    /// Whether a tab is leased.
    pub leased: bool,
    /// Who last stopped or resumed sends, and when (ms since the epoch); `None` before the
    /// first Stop.
    pub gate_changed: Option<(String, Millis)>,
    /// The newest check of a tab's page (issue 35, Check this page), if any.
    #[serde(default)]
    pub page_check: Option<super::PageCheck>,
}

pub(crate) fn glance(conn: &Connection, now: Millis) -> rusqlite::Result<Glance> {
    let (closed, changed_at, changed_by): (i64, Millis, String) = conn.query_row(
        "SELECT closed, changed_at, changed_by FROM gate WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let leased: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM leases WHERE ended_at IS NULL)",
        [],
        |r| r.get(0),
    )?;
    let why = holds::for_profile(conn, now)?;
    Ok(Glance {
        gate_closed: closed == 1,
        waiting_sentence: why.as_ref().map(|w| w.sentence(now)),
        waiting_words: why.as_ref().map(Holds::words),
        pending_by_site: super::sections::pending_by_site(conn)?,
        leased,
        // The row made with the ledger (changed_at 0) is no one's Stop or Resume.
        gate_changed: (changed_at > 0).then_some((changed_by, changed_at)),
        page_check: super::page_checks::latest_per_tab(conn)?.into_iter().next(),
    })
}
