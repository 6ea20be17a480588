//! What a queue row shows beside its send — its audit trail, the send that queued it again,
//! its destination and that conversation's title, what the page's request showed, its
//! answer's artifacts, the stop of its answer — read for a whole page of sends at once:
//! one query per part (`op_id IN` a JSON array of ids, through each table's own key),
//! never a query per send per part (issue 39: 471 rows cost ~0.15 ms each that way at a
//! million sends). Each part is what the per-send read of it gives (`timeline`,
//! `queued_again_as`, `destination`, `conversation_title`, `page_attachments`,
//! `page_destination`, `artifacts`, `remote_stop`); `tests/ledger_sections.rs` holds both
//! equal and the plans.

use super::artifacts::{self, Artifact};
use super::destinations;
use super::page_attachments::{self, PageAttachments};
use super::page_destination::{self, PageDestination};
use super::record::{Event, Send};
use super::remote_stop::{self, RemoteStop};
use super::rows::{self, ids_param};
use super::sections;
use super::titles;
use crate::destination::Destination;
use rusqlite::Connection;
use std::collections::HashMap;

/// What one send's row shows beside the send itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowParts {
    /// The audit trail, oldest first.
    pub timeline: Vec<Event>,
    /// The operation that queued it again (the oldest), once a person did.
    pub queued_again_as: Option<String>,
    /// Where it goes, as recorded at queue time (`None` before migration 0011).
    pub destination: Option<Destination>,
    /// The title of the conversation the destination names, else of the one its receipt
    /// shows (a new chat's); `None` without a destination or a title.
    pub title: Option<String>,
    /// What the page's request carried, once observed.
    pub page_attachments: Option<PageAttachments>,
    /// What the page's request showed of its destination, once observed.
    pub page_destination: Option<PageDestination>,
    /// The answer's artifacts, in order.
    pub artifacts: Vec<Artifact>,
    /// The stop a Stop asked of its answer, if any.
    pub remote_stop: Option<RemoteStop>,
}

/// The parts of each of `sends`, in their order: eight queries, however many sends.
pub(crate) fn read(conn: &Connection, sends: &[Send]) -> rusqlite::Result<Vec<RowParts>> {
    if sends.is_empty() {
        return Ok(Vec::new());
    }
    let ids = ids_param(sends.iter().map(|s| s.op_id.as_str()));
    let mut timelines = rows::timelines(conn, &ids)?;
    let mut again = sections::queued_again_as_of(conn, &ids)?;
    let mut places = destinations::of_sends(conn, &ids)?;
    let mut files = page_attachments::pages_of(conn, &ids)?;
    let mut pages = page_destination::pages_of(conn, &ids)?;
    let mut made = artifacts::of_sends(conn, &ids)?;
    let mut stops = remote_stop::of_sends(conn, &ids)?;
    let mut parts: Vec<RowParts> = sends
        .iter()
        .map(|s| RowParts {
            timeline: timelines.remove(&s.op_id).unwrap_or_default(),
            queued_again_as: again.remove(&s.op_id),
            destination: places.remove(&s.op_id),
            page_attachments: files.remove(&s.op_id),
            page_destination: pages.remove(&s.op_id),
            artifacts: made.remove(&s.op_id).unwrap_or_default(),
            remote_stop: stops.remove(&s.op_id),
            title: None,
        })
        .collect();
    add_titles(conn, sends, &mut parts)?;
    Ok(parts)
}

/// The conversation whose title a row shows: the destination's, else the receipt's.
fn titled_conversation<'a>(send: &'a Send, parts: &'a RowParts) -> Option<&'a str> {
    let d = parts.destination.as_ref()?;
    d.conversation_id
        .as_deref()
        .or_else(|| send.receipt.as_ref().map(|r| r.conversation_id.as_str()))
}

fn add_titles(conn: &Connection, sends: &[Send], parts: &mut [RowParts]) -> rusqlite::Result<()> {
    let wanted: Vec<&str> = sends
        .iter()
        .zip(parts.iter())
        .filter_map(|(s, p)| titled_conversation(s, p))
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let found: HashMap<String, String> = titles::of_conversations(conn, &ids_param(wanted))?;
    for (s, p) in sends.iter().zip(parts.iter_mut()) {
        p.title = titled_conversation(s, p).and_then(|c| found.get(c).cloned());
    }
    Ok(())
}

/// Each part's batched SQL by name, in the order [`read`] runs them (what the plan test
/// explains: each reads through its table's key or index, never a scan of the table).
pub fn sql() -> Vec<(&'static str, String)> {
    vec![
        ("timeline", rows::timelines_sql()),
        ("queued_again_as", sections::queued_again_sql()),
        ("destination", destinations::of_sends_sql()),
        ("page_attachments", page_attachments::pages_of_sql()),
        ("page_destination", page_destination::pages_of_sql()),
        ("artifacts", artifacts::of_sends_sql()),
        ("remote_stop", remote_stop::of_sends_sql()),
        ("title", titles::of_conversations_sql()),
    ]
}
