//! Why a send waits: the holds of each site (read by `holds.rs` for the profile's
//! `status`, the tray and the window's header) and why one queued send waits (`show`, the
//! window's row) — from the first second, read from the
//! ledger alone, so a read-only reader says the same as the owner.

use super::in_flight;
use super::limit_gate;
use super::local_time::local_time;
use super::page_gate;
use super::record::Send;
use super::rows::{self, cached_row};
use super::state::SendState;
use super::tab_reports;
use crate::clock::Millis;
use crate::site::Site;
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

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
    /// The page answered with the account's usage limit (that site's gate holds).
    UsageLimit {
        /// The site whose account is capped (its gate; another site's sends go on).
        #[serde(default)]
        site: Site,
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
        /// The site of the tabs.
        #[serde(default)]
        site: Site,
        /// The oldest send in flight.
        op_id: String,
    },
    /// A leased tab shows the send's conversation and is free, so the send is left to it;
    /// it is taken as soon as that tab asks. A tab that stopped answering is let go after
    /// [`super::Bounds::lease_silence_ms`], and another tab then takes the send.
    TabToTake {
        /// The site of the tab.
        #[serde(default)]
        site: Site,
        /// The tab that shows the conversation.
        tab_id: String,
    },
    /// No tab of the site is leased, and a tab said why it cannot take a send.
    TabCannotTakeSends {
        /// The site no tab is leased for.
        #[serde(default)]
        site: Site,
        /// The tab.
        tab_id: String,
        /// What it said.
        reason: String,
    },
    /// No tab of the site is leased at all.
    NoTab {
        /// The site.
        #[serde(default)]
        site: Site,
    },
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
            Waiting::NoTab { .. } => "no tab",
        }
    }

    /// The site whose own hold this is (its usage limit, its tabs); `None` for one that
    /// holds every site (Stop, the page changed) or for the cap.
    pub fn site(&self) -> Option<Site> {
        match self {
            Waiting::UsageLimit { site, .. }
            | Waiting::TabsBusy { site, .. }
            | Waiting::TabToTake { site, .. }
            | Waiting::TabCannotTakeSends { site, .. }
            | Waiting::NoTab { site } => Some(*site),
            Waiting::Stopped
            | Waiting::PageChanged { .. }
            | Waiting::InFlight { .. }
            | Waiting::AtCap { .. } => None,
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
                "the page changed: {} did not recognise page fact {fact_id}, which every send needs, so nothing is sent and nothing is typed; update the extension, or reload the tab and run Check this page, then resume (Resume in the window or tray, or `sendledger resume --by WHO`)",
                tab_id.as_deref().map_or_else(|| "the owner".to_string(), |t| format!("tab {t}"))
            ),
            Waiting::UsageLimit { site, until_ms: Some(t), .. } => format!(
                "{} usage limit: sending resumes at {} (or now: `sendledger resume --by WHO`)",
                site.title(),
                local_time(*t, now)
            ),
            // A refusal that holds until a person resumes (a 403 "Unusual activity", a 431)
            // is said with the page's own words, not called a usage limit.
            Waiting::UsageLimit {
                site,
                until_ms: None,
                message: Some(words),
            } => format!(
                "{} said no (\"{words}\"), naming no time: sending resumes when a person resumes (`sendledger resume --by WHO`)",
                site.title()
            ),
            Waiting::UsageLimit { site, until_ms: None, .. } => format!(
                "{} usage limit: the page named no reset time; sending resumes when a person resumes (`sendledger resume --by WHO`)",
                site.title()
            ),
            Waiting::InFlight { op_id } => format!(
                "waiting for send {op_id}, in flight in the same conversation (one send at a time in a conversation)"
            ),
            Waiting::AtCap { max } => format!(
                "waiting: {max} of {max} sends are in flight, as many as max_in_flight lets go at once (raise it in the window's settings or config.json)"
            ),
            Waiting::TabsBusy { site, op_id } => format!(
                "waiting: every leased tab that can take it has a send in flight (oldest {op_id}); open another {} tab, or wait",
                site.host()
            ),
            Waiting::TabToTake { site, tab_id } => format!(
                "waiting for tab {tab_id}, which shows its conversation, to take it; a tab that stops answering (closed, crashed, asleep) is let go after {} s, and another {} tab then takes the send",
                super::Bounds::default().lease_silence_ms / 1000,
                site.host()
            ),
            Waiting::TabCannotTakeSends { site, tab_id, reason } => {
                format!("no {} tab can take a send: tab {tab_id}: {reason}", site.host())
            }
            Waiting::NoTab { site } => format!(
                "no {host} tab is leased: open {host} in the browser where the sendledger extension is paired (`sendledger pair` gives a code)",
                host = site.host()
            ),
        }
    }
}

/// Whether a tab of `site` (any site when `None`) is leased.
pub(super) fn any_lease(conn: &Connection, site: Option<Site>) -> rusqlite::Result<bool> {
    cached_row(
        conn,
        "SELECT EXISTS (SELECT 1 FROM leases WHERE ended_at IS NULL AND (?1 IS NULL OR site = ?1))",
        [site],
        |r| r.get(0),
    )
}

/// What holds every site's sends back: Stop, or the page gate.
pub(super) fn held_everywhere(conn: &Connection) -> rusqlite::Result<Option<Waiting>> {
    let closed: i64 = conn.query_row("SELECT closed FROM gate WHERE id = 1", [], |r| r.get(0))?;
    if closed == 1 {
        return Ok(Some(Waiting::Stopped));
    }
    let page = page_gate::get(conn)?;
    Ok(page.closed.then(|| Waiting::PageChanged {
        fact_id: page.fact_id.unwrap_or_default(),
        tab_id: page.tab_id,
    }))
}

pub(super) fn usage_limit(gate: limit_gate::LimitGate) -> Waiting {
    Waiting::UsageLimit {
        site: gate.site,
        until_ms: gate.until_ms,
        message: gate.reason,
    }
}

/// No tab of `site` is leased: what a tab said, if one did, else [`Waiting::NoTab`].
pub(super) fn no_tab(conn: &Connection, site: Site) -> rusqlite::Result<Waiting> {
    let report = tab_reports::list(conn)?.into_iter().next();
    Ok(match report {
        Some(r) => Waiting::TabCannotTakeSends {
            site,
            tab_id: r.tab_id,
            reason: r.reason,
        },
        None => Waiting::NoTab { site },
    })
}

/// Why nothing of `site` can go out at `now`: Stop, the page gate, `site`'s own limit
/// gate (never another site's), or no tab of `site` leased.
fn for_site(conn: &Connection, site: Site, now: Millis) -> rusqlite::Result<Option<Waiting>> {
    if let Some(w) = held_everywhere(conn)? {
        return Ok(Some(w));
    }
    let gate = limit_gate::get_for(conn, site)?;
    if gate.holds_at(now) {
        return Ok(Some(usage_limit(gate)));
    }
    if !any_lease(conn, Some(site))? {
        return Ok(Some(no_tab(conn, site)?));
    }
    Ok(None)
}

/// Why the queued send `send` waits at `now`, naming its own site's gate and tabs;
/// `None` when it is not queued or nothing holds it back (it is about to be claimed).
pub(crate) fn for_send(
    conn: &Connection,
    send: &Send,
    now: Millis,
) -> rusqlite::Result<Option<Waiting>> {
    if send.state != SendState::Queued {
        return Ok(None);
    }
    for_send_of(conn, send.site, send, now)
}

/// [`for_send`] for each of `sends`, in their order. Why a queued send waits follows only
/// from its site and its conversation (and the profile's gates, tabs and sends in flight),
/// so it is read once per (site, conversation) among them: a page of queued sends to one
/// place costs one reading, not one each.
pub(crate) fn for_sends(
    conn: &Connection,
    sends: &[Send],
    now: Millis,
) -> rusqlite::Result<Vec<Option<Waiting>>> {
    let mut known: HashMap<(Site, Option<&str>), Option<Waiting>> = HashMap::new();
    let mut out = Vec::with_capacity(sends.len());
    for send in sends {
        if send.state != SendState::Queued {
            out.push(None);
            continue;
        }
        let site = send.site;
        let key = (site, send.conversation_id.as_deref());
        let why = match known.get(&key) {
            Some(w) => w.clone(),
            None => for_send_of(conn, site, send, now)?,
        };
        known.insert(key, why.clone());
        out.push(why);
    }
    Ok(out)
}

/// [`for_send`] of the queued `send` going to `site`.
fn for_send_of(
    conn: &Connection,
    site: Site,
    send: &Send,
    now: Millis,
) -> rusqlite::Result<Option<Waiting>> {
    if let Some(w) = for_site(conn, site, now)? {
        return Ok(Some(w));
    }
    if let Some(c) = &send.conversation_id {
        if let Some(op_id) = in_flight::in_conversation(conn, site, c, None)? {
            return Ok(Some(Waiting::InFlight { op_id }));
        }
    }
    let max = in_flight::cap(conn)?;
    if in_flight::count(conn)? >= max {
        return Ok(Some(Waiting::AtCap { max }));
    }
    // A send for a conversation no leased tab shows is not held back: a leased tab takes
    // it and goes there (docs/extension.md, "The tab goes to the destination").
    if let Some(op_id) = tabs_busy(conn, site, send)? {
        return Ok(Some(Waiting::TabsBusy { site, op_id }));
    }
    Ok(showing_tab(conn, site, send)?.map(|tab_id| Waiting::TabToTake { site, tab_id }))
}

/// The leased tab of `site` (the send's) that shows the conversation `send` names, when
/// one does: the send is left to it (`in_flight::next_for`). Another site's tab showing
/// the same id is not its tab.
fn showing_tab(conn: &Connection, site: Site, send: &Send) -> rusqlite::Result<Option<String>> {
    let Some(c) = &send.conversation_id else {
        return Ok(None);
    };
    cached_row(
        conn,
        "SELECT tab_id FROM leases WHERE ended_at IS NULL AND site = ?2 AND conversation_id = ?1 \
         AND generation = (SELECT generation FROM gate WHERE id = 1) \
         ORDER BY created_at DESC LIMIT 1",
        params![c, site],
        |r| r.get(0),
    )
    .optional()
}

/// The oldest send in flight when every leased tab of `site` that fits `send` (shows its
/// conversation; any tab for a send naming none, or naming one no leased tab of `site`
/// shows) has a send in flight, or shows a conversation another send of `site` is in
/// flight in. Conversations are keyed on (site, id): another site's are never evidence.
fn tabs_busy(conn: &Connection, site: Site, send: &Send) -> rusqlite::Result<Option<String>> {
    let free: bool = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM leases l WHERE l.ended_at IS NULL AND l.site = ?2 \
               AND (?1 IS NULL OR l.conversation_id = ?1 OR NOT EXISTS (SELECT 1 FROM leases o \
                    WHERE o.ended_at IS NULL AND o.site = ?2 AND o.conversation_id = ?1)) \
               AND NOT EXISTS (SELECT 1 FROM in_flight_places p WHERE p.tab_id = l.tab_id \
                   OR (p.site = ?2 AND p.conversation_id = COALESCE(?1, l.conversation_id))))",
        )?
        .query_row(params![send.conversation_id.as_deref(), site], |r| r.get(0))?;
    if free {
        return Ok(None);
    }
    rows::in_flight(conn)
}
