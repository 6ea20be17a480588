//! Sends in flight (migration 0013): never two in one conversation or in one tab, and
//! never more than the profile's cap (`max_in_flight`, 1 to [`MAX_IN_FLIGHT`]) at once.
//!
//! A send in flight is claimed, dispatched, or accepted with its answer awaited (the
//! `sends_in_flight` view). It is in flight in every conversation it is known in (view
//! `in_flight_places`, one row each): the one it names, its receipt's, the one the page's
//! own request named after the click, and, for a send naming none, the one its lease's tab
//! showed (a tab taking a send that names a conversation goes there first). So a new chat
//! whose conversation the page has named is that conversation, and a send whose page went
//! elsewhere (a `destination_mismatch`) holds both conversations until it ends. The claim
//! (`sends::claim_next`) asks these questions; triggers `sends_one_in_flight_per_conversation`
//! and `sends_in_flight_capped` re-check them in SQL at the claim's time.

use super::epochs::Lease;
use super::error::{LedgerError, Result};
use super::rows::cached_row;
use crate::site::Site;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

pub use crate::profile::config::MAX_IN_FLIGHT;

/// The cap the owner last wrote (1 before any owner of this version started).
pub(crate) fn cap(conn: &Connection) -> rusqlite::Result<u32> {
    cached_row(
        conn,
        "SELECT max_in_flight FROM in_flight_cap WHERE id = 1",
        [],
        |r| r.get(0),
    )
}

/// Writes the cap (the act `SetMaxInFlight`, or the owner at start from `config.json`). Errors: `Invalid` outside
/// 1 to [`MAX_IN_FLIGHT`].
pub(crate) fn set_cap(tx: &Transaction, max: u32) -> Result<()> {
    if !(1..=MAX_IN_FLIGHT).contains(&max) {
        return Err(LedgerError::Invalid(format!(
            "max_in_flight must be 1 to {MAX_IN_FLIGHT}, not {max}"
        )));
    }
    tx.execute(
        "UPDATE in_flight_cap SET max_in_flight = ?1 WHERE id = 1",
        [max],
    )?;
    Ok(())
}

/// How many sends are in flight.
pub(crate) fn count(conn: &Connection) -> rusqlite::Result<u32> {
    cached_row(conn, "SELECT count(*) FROM sends_in_flight", [], |r| {
        r.get(0)
    })
}

/// The send in flight in `tab_id`, if any.
pub(crate) fn in_tab(conn: &Connection, tab_id: &str) -> rusqlite::Result<Option<String>> {
    cached_row(
        conn,
        "SELECT op_id FROM in_flight_places WHERE tab_id = ?1 ORDER BY seq LIMIT 1",
        [tab_id],
        |r| r.get(0),
    )
    .optional()
}

/// The send in flight in `site`'s conversation `conversation_id`, other than `except`
/// (an op id), if any. Keyed on (site, id): another site's conversation of the same id
/// is another conversation.
pub(crate) fn in_conversation(
    conn: &Connection,
    site: Site,
    conversation_id: &str,
    except: Option<&str>,
) -> rusqlite::Result<Option<String>> {
    cached_row(
        conn,
        "SELECT op_id FROM in_flight_places WHERE site = ?3 AND conversation_id = ?1 \
         AND op_id IS NOT ?2 ORDER BY seq LIMIT 1",
        params![conversation_id, except, site],
        |r| r.get(0),
    )
    .optional()
}

/// The oldest queued send of `lease`'s site that it may claim now: one naming no conversation, the one its
/// tab shows, or one no live lease shows (the tab goes there first); under an epoch not
/// stopped; whose conversation — the one it names, else the tab's — has no send in flight.
/// A send for a conversation another live tab shows is left to that tab. `None` too while
/// the tab has a send in flight or the cap's number of sends are in flight.
///
/// A new-chat lease whose send was accepted (its `new_chat_id`, migration 0026) is a tab
/// on its way to that conversation: it claims only a send naming none or that one — what
/// its next lease takes over — never one that would be rejected when the lease ends.
pub(crate) fn next_for(tx: &Transaction, lease: &Lease) -> rusqlite::Result<Option<String>> {
    if count(tx)? >= cap(tx)? || in_tab(tx, &lease.binding.tab_id)?.is_some() {
        return Ok(None);
    }
    let moving_to: Option<String> = cached_row(
        tx,
        "SELECT new_chat_id FROM leases WHERE lease_id = ?1",
        [&lease.lease_id],
        |r| r.get(0),
    )
    .optional()?
    .flatten();
    let shown = lease
        .binding
        .conversation_id
        .as_deref()
        .or(moving_to.as_deref());
    cached_row(
        tx,
        "SELECT s.op_id FROM sends s WHERE s.state = 'queued' AND s.site = ?3 \
             AND (s.conversation_id IS NULL OR s.conversation_id = ?1 \
                  OR (NOT ?4 AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.ended_at IS NULL AND l.site = ?3 \
                                 AND l.generation = ?2 AND l.conversation_id = s.conversation_id))) \
             AND s.epoch NOT IN (SELECT epoch FROM stopped_epochs) \
             AND NOT EXISTS (SELECT 1 FROM in_flight_places p WHERE p.site = ?3 \
                 AND p.conversation_id = COALESCE(s.conversation_id, ?1)) \
         ORDER BY s.seq LIMIT 1",
        params![shown, lease.generation, lease.binding.site, moving_to.is_some()],
        |r| r.get(0),
    )
    .optional()
}
