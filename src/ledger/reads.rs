//! The ledger's one read API, [`LedgerRead`], implemented by the owner's [`Ledger`] and
//! by [`LedgerReader`] (a read-only handle that works while another process owns the
//! profile: the CLI's `status`/`show`, the queue view's source). Both answer the same
//! queries with the same errors; the owner's answers also say when its files moved
//! under it.

use super::destinations;
use super::displacement::Displacement;
use super::error::{self, LedgerError, Result};
use super::handle::Ledger;
use super::limit_gate::{self, LimitGate};
use super::overview::{self, Glance, Status};
use super::page_destination::{self, PageDestination};
use super::page_gate::{self, PageGate};
use super::placement;
use super::record::{Event, Send};
use super::remote_stop::{self, RemoteStop};
use super::row_parts::RowParts;
use super::rows::{self, ListFilter};
use super::sections::{self, Shelf};
use super::store;
use super::titles;
use super::tool_calls::{self, ToolCall};
use super::traces::{self, BrokenReference};
use super::waiting::{self, Waiting};
use crate::clock::{Clock, Millis, SystemClock};
use crate::destination::Destination;
use crate::profile::Profile;
use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// What a read reads from: a handle's connection, its file (named in errors), the time
/// of the read (ms, wall clock) and what moved under the owner, if anything. Made only
/// inside the ledger, so [`LedgerRead`] has no implementations but these two.
pub struct ReadSource<'a> {
    conn: &'a Connection,
    path: &'a Path,
    now: Millis,
    displaced: Option<&'a Displacement>,
    /// The owner's damage gate (`damage::Gate::noted`); none for a reader.
    damaged: Option<&'a super::damage::Gate>,
}

impl ReadSource<'_> {
    /// SQLite's failure as a person can act on it (a damaged file names its path).
    fn mapped(&self, e: rusqlite::Error) -> LedgerError {
        match self.damaged {
            Some(gate) => gate.noted(error::from_sqlite(e, self.path)),
            None => error::from_sqlite(e, self.path),
        }
    }
}

/// The reads of a ledger. Errors: storage errors mapped to what a person can act on
/// (`Corrupt` naming the file, `Busy`, …).
pub trait LedgerRead {
    /// Where this handle's reads come from.
    #[doc(hidden)]
    fn source(&self) -> ReadSource<'_>;

    /// Reads one send.
    fn get(&self, op_id: &str) -> Result<Option<Send>> {
        let s = self.source();
        rows::get(s.conn, op_id).map_err(|e| s.mapped(e))
    }

    /// Lists sends, newest first.
    fn list(&self, filter: &ListFilter) -> Result<Vec<Send>> {
        let s = self.source();
        rows::list(s.conn, filter).map_err(|e| s.mapped(e))
    }

    /// The send the lease `lease_id` holds claimed, whatever other claims other tabs hold
    /// (a claimed send is handed again to its own lease: a lost answer, a moved claim).
    fn claimed_by(&self, lease_id: &str) -> Result<Option<Send>> {
        let s = self.source();
        rows::claimed_by(s.conn, lease_id).map_err(|e| s.mapped(e))
    }

    /// A send's audit trail, oldest first.
    fn timeline(&self, op_id: &str) -> Result<Vec<Event>> {
        let s = self.source();
        rows::timeline(s.conn, op_id).map_err(|e| s.mapped(e))
    }

    /// What the rows of `sends` show beside each send (timeline, queued again as,
    /// destination and its title, the page's request, artifacts, remote stop), in their
    /// order: one query per part, however many sends ([`RowParts`]).
    fn row_parts(&self, sends: &[Send]) -> Result<Vec<RowParts>> {
        let s = self.source();
        super::row_parts::read(s.conn, sends).map_err(|e| s.mapped(e))
    }

    /// Audit events after `after_id` (the change feed), at most `limit`.
    fn events_since(&self, after_id: i64, limit: u32) -> Result<Vec<Event>> {
        let s = self.source();
        rows::events_since(s.conn, after_id, limit).map_err(|e| s.mapped(e))
    }

    /// The remote stop a Stop asked for on `op_id`'s answer, in whatever phase, if any.
    fn remote_stop(&self, op_id: &str) -> Result<Option<RemoteStop>> {
        let s = self.source();
        remote_stop::of_send(s.conn, op_id).map_err(|e| s.mapped(e))
    }

    /// What the page's request for `op_id` named, once observed.
    fn page_destination(&self, op_id: &str) -> Result<Option<PageDestination>> {
        page_destination::page_of(self.source().conn, op_id)
    }

    /// The files the send `op_id` carries, in its order, with the page's ids once granted.
    fn attachments_of(&self, op_id: &str) -> Result<Vec<super::SendAttachment>> {
        super::attachments::of_send(self.source().conn, op_id)
    }

    /// The artifacts of `op_id`'s answer, in order (none for a send without).
    fn artifacts(&self, op_id: &str) -> Result<Vec<super::Artifact>> {
        super::artifacts::of_send(self.source().conn, op_id)
    }

    /// What the page's request for `op_id` carried, once observed (`None` also for a send
    /// without files whose request carried none).
    fn page_attachments(&self, op_id: &str) -> Result<Option<super::PageAttachments>> {
        super::page_attachments::page_of(self.source().conn, op_id)
    }

    /// The tab ids of the leases not ended, the newest lease first.
    fn leased_tabs(&self) -> Result<Vec<String>> {
        let s = self.source();
        super::page_checks::leased_tabs(s.conn).map_err(|e| s.mapped(e))
    }

    /// The newest check of each tab's page, newest first.
    fn page_checks(&self) -> Result<Vec<super::PageCheck>> {
        let s = self.source();
        super::page_checks::latest_per_tab(s.conn).map_err(|e| s.mapped(e))
    }

    /// The check a tab sent with the failure of `op_id` (a page fact did not hold), if any.
    fn page_check_of(&self, op_id: &str) -> Result<Option<super::PageCheck>> {
        let s = self.source();
        super::page_checks::of_send(s.conn, op_id).map_err(|e| s.mapped(e))
    }

    /// Where the send `op_id` goes, as recorded at queue time; `None` for a send admitted
    /// before destinations were recorded (migration 0011).
    fn destination(&self, op_id: &str) -> Result<Option<Destination>> {
        destinations::get(self.source().conn, op_id)
    }

    /// The title the page last gave the conversation, if a tab forwarded one.
    fn conversation_title(&self, conversation_id: &str) -> Result<Option<String>> {
        let s = self.source();
        titles::get(s.conn, conversation_id).map_err(|e| s.mapped(e))
    }

    /// The limit gate as stored (see [`LimitGate::holds_at`]).
    fn limit_gate(&self) -> Result<LimitGate> {
        let s = self.source();
        limit_gate::get(s.conn).map_err(|e| s.mapped(e))
    }

    /// How long a client is to wait before sending again, when send `op_id` closed the
    /// limit gate and it still holds (see [`LimitGate::retry_after_for`]).
    fn retry_after(&self, op_id: &str) -> Result<Option<super::RetryAfter>> {
        let s = self.source();
        let gate = limit_gate::of_send(s.conn, op_id).map_err(|e| s.mapped(e))?;
        Ok(gate.retry_after_for(op_id, s.now))
    }

    /// The retention setting (issue 39; off until a person sets it).
    fn retention(&self) -> Result<super::Retention> {
        let s = self.source();
        super::retention::get(s.conn).map_err(|e| s.mapped(e))
    }

    /// The page-changed gate as stored (closed until a person resumes).
    fn page_gate(&self) -> Result<PageGate> {
        let s = self.source();
        page_gate::get(s.conn).map_err(|e| s.mapped(e))
    }

    /// The profile at a glance. When the owner's files moved under it, why nothing goes
    /// out says so (the tray's line, the window, `GET /v1/status`).
    fn status(&self) -> Result<Status> {
        let s = self.source();
        let mut status = overview::status(s.conn, s.now).map_err(|e| s.mapped(e))?;
        if let Some(d) = s.displaced {
            status.waiting_sentence = Some(d.sentence(s.now));
        }
        Ok(status)
    }

    /// The gate, why nothing goes out, and whether a tab is leased: [`Status`] without
    /// counting every send. When the owner's files moved under it, why nothing goes out
    /// says so.
    fn glance(&self) -> Result<Glance> {
        let s = self.source();
        let mut glance = overview::glance(s.conn, s.now).map_err(|e| s.mapped(e))?;
        if let Some(d) = s.displaced {
            glance.waiting_sentence = Some(d.sentence(s.now));
            glance.waiting_words = Some("files moved: see doctor".into());
        }
        Ok(glance)
    }

    /// The sends on one part of the queue, read through its index.
    fn shelf(&self, shelf: &Shelf) -> Result<Vec<Send>> {
        let s = self.source();
        sections::read(s.conn, shelf).map_err(|e| s.mapped(e))
    }

    /// How many sends the Stopped section holds, `(all, not yet queued again)`, counted
    /// through its indexes (never a scan of the sends table).
    fn stopped_counts(&self) -> Result<(i64, i64)> {
        let s = self.source();
        sections::stopped_counts(s.conn).map_err(|e| s.mapped(e))
    }

    /// The operation that queued `op_id` again, if a person did.
    fn queued_again_as(&self, op_id: &str) -> Result<Option<String>> {
        let s = self.source();
        sections::queued_again_as(s.conn, op_id).map_err(|e| s.mapped(e))
    }

    /// Why the queued send `send` waits now, if something holds it back.
    fn waiting(&self, send: &Send) -> Result<Option<Waiting>> {
        let s = self.source();
        waiting::for_send(s.conn, send, s.now).map_err(|e| s.mapped(e))
    }

    /// [`Self::waiting`] as the sentence a person reads (local times).
    fn waiting_sentence(&self, send: &Send) -> Result<Option<String>> {
        let now = self.source().now;
        Ok(self.waiting(send)?.map(|w| w.sentence(now)))
    }

    /// [`Self::waiting_sentence`] for each of `sends`, in their order (read once per site
    /// and conversation among them).
    fn waiting_sentences(&self, sends: &[Send]) -> Result<Vec<Option<String>>> {
        let s = self.source();
        let why = waiting::for_sends(s.conn, sends, s.now).map_err(|e| s.mapped(e))?;
        Ok(why
            .into_iter()
            .map(|w| w.map(|w| w.sentence(s.now)))
            .collect())
    }

    /// Reads a tool call.
    fn tool_show(&self, call_id: &str) -> Result<Option<ToolCall>> {
        tool_calls::get(self.source().conn, call_id)
    }

    /// `PRAGMA integrity_check` and `foreign_key_check`; empty when healthy.
    fn integrity_problems(&self) -> Result<Vec<String>> {
        let s = self.source();
        integrity(s.conn).map_err(|e| match e {
            LedgerError::Sqlite(e) => s.mapped(e),
            other => other,
        })
    }

    /// The missing rows that rows still refer to (after a salvage: the sends whose rows
    /// were on damaged pages), by key.
    fn broken_references(&self) -> Result<Vec<BrokenReference>> {
        let s = self.source();
        traces::broken_references(s.conn).map_err(|e| s.mapped(e))
    }
}

impl LedgerRead for Ledger {
    fn source(&self) -> ReadSource<'_> {
        ReadSource {
            conn: &self.conn,
            path: &self.path,
            now: self.now_ms(),
            displaced: self.displacement(),
            damaged: Some(&self.damaged),
        }
    }
}

/// A read-only handle: works while another process owns the profile, and takes no lock.
pub struct LedgerReader {
    conn: Connection,
    path: PathBuf,
}

impl LedgerReader {
    /// Opens the profile's ledger read-only. Errors: `NoLedger`, `LedgerMissing` (none, but
    /// the profile shows it had one: what was found and what to do), `NewerSchema`, `Corrupt`.
    pub fn open(profile: &Profile) -> Result<Self> {
        let path = profile.ledger_path()?;
        if !path.exists() {
            let found = profile.signs_of_a_ledger();
            if !found.is_empty() {
                return Err(placement::missing_ledger(profile, &path, &found));
            }
        }
        let conn = store::open_reader(&path)?;
        Ok(Self { conn, path })
    }

    /// The ledger file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl LedgerRead for LedgerReader {
    fn source(&self) -> ReadSource<'_> {
        ReadSource {
            conn: &self.conn,
            path: &self.path,
            now: SystemClock.now_ms(),
            displaced: None,
            damaged: None,
        }
    }
}

fn integrity(conn: &Connection) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let mut stmt = conn.prepare("PRAGMA integrity_check")?;
    for row in stmt.query_map([], |r| r.get::<_, String>(0))? {
        let row = row?;
        if row != "ok" {
            problems.push(row);
        }
    }
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    for row in stmt.query_map([], |r| r.get::<_, String>(0))? {
        problems.push(format!("foreign key broken in table {}", row?));
    }
    if problems.is_empty() {
        problems.extend(super::counts::disagreements(conn)?);
    }
    Ok(problems)
}
