//! One long-poll for all the tabs of an extension (issue 39): `POST /v1/ext/next` naming
//! many leases — those whose tab waits for a send (`lease_ids`) and those whose tab waits
//! for a remote stop while an answer is generating (`stop_lease_ids`) — answered as soon
//! as any of them has something: a claim, a person's page check, a pending remote stop,
//! or a lease that ended. Chromium keeps at most six connections to one host, so one poll
//! per tab would leave no connection for the observations of the seventh and eighth tab.
//!
//! Custody is per lease, as with one lease per poll: each claim is made for its own
//! lease and handed again to that lease by the next poll when the answer was lost
//! (claimed means no grant was issued, so nothing was clicked); a remote stop goes to
//! the lease of the tab that wrote the answer. Shapes: docs/bridge-api.md,
//! `POST /v1/ext/next` (many tabs).

use super::error::ApiError;
use super::hand_out::{handed, long_poll, take_with_files, MAX_WAIT_MS};
use super::BridgeState;
use crate::error_code::ErrorCode;
use crate::ledger::{Ledger, LedgerError, RemotePhase};
use axum::http::StatusCode;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

/// The most leases one poll may name, in `lease_ids` and `stop_lease_ids` together (the
/// popup's lease table and `max_in_flight`'s 8 are far below it). Over it: 400 `too_many`.
pub const MAX_POLL_LEASES: usize = 64;

/// The longest lease id a poll may name, in bytes (lease ids are 36-character UUIDs).
const MAX_LEASE_ID_BYTES: usize = 128;

/// What one poll asks for.
pub(super) struct Poll {
    /// Leases whose tab waits for a send or a page check (deduplicated, in order).
    pub lease_ids: Vec<String>,
    /// Leases whose tab waits for a remote stop (deduplicated, in order).
    pub stop_lease_ids: Vec<String>,
    /// How long to wait, at most [`MAX_WAIT_MS`].
    pub wait: Duration,
}

impl Poll {
    /// The poll, or a refusal naming the bound it broke: no lease at all, more than
    /// [`MAX_POLL_LEASES`], or a lease id over [`MAX_LEASE_ID_BYTES`].
    pub(super) fn new(
        lease_ids: Vec<String>,
        stop_lease_ids: Vec<String>,
        wait_ms: Option<u64>,
    ) -> Result<Self, ApiError> {
        let (lease_ids, stop_lease_ids) = (dedup(lease_ids), dedup(stop_lease_ids));
        let count = lease_ids.len() + stop_lease_ids.len();
        if count == 0 {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::Malformed,
                "the poll names no lease: give `lease_ids` (tabs waiting for a send) or `stop_lease_ids` (tabs waiting for a remote stop)",
            ));
        }
        if count > MAX_POLL_LEASES {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::TooMany,
                format!("the poll names {count} leases, more than the {MAX_POLL_LEASES} one poll may name: poll for fewer tabs at once"),
            ));
        }
        let long = lease_ids.iter().chain(&stop_lease_ids);
        if long.clone().any(|l| l.len() > MAX_LEASE_ID_BYTES) {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::Invalid,
                format!("a lease id of the poll is longer than {MAX_LEASE_ID_BYTES} bytes: it is no lease this owner gave; lease the tab again"),
            ));
        }
        let wait = Duration::from_millis(wait_ms.unwrap_or(MAX_WAIT_MS).min(MAX_WAIT_MS));
        Ok(Self {
            lease_ids,
            stop_lease_ids,
            wait,
        })
    }
}

fn dedup(ids: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    ids.into_iter().filter(|i| seen.insert(i.clone())).collect()
}

/// Answers the poll: `{"answers": [...]}`, one entry per lease that has something (none
/// when the wait ran out or the owner is shutting down). An entry is
/// `{lease_id, wants: "send", send}` (a claim), `{lease_id, wants: "send", send: null,
/// page_check}`, `{lease_id, wants: "stops", remote_stops: [...]}` (at least one pending),
/// or `{lease_id, wants, error: {status, code, message}}` (the lease is unknown, ended or
/// its epoch stopped: the tab leases again, as after the one-lease poll's refusal).
pub(super) async fn answer(st: &BridgeState, poll: Poll) -> Result<Value, ApiError> {
    let Poll {
        lease_ids,
        stop_lease_ids,
        wait,
    } = poll;
    let ids = lease_ids.clone();
    let tabs: HashMap<String, String> = st
        .ledger()
        .call(move |l| {
            ids.into_iter()
                .filter_map(|id| Some((id.clone(), l.get_lease(&id).ok()?.binding.tab_id)))
                .collect()
        })
        .await;
    let answers = long_poll(st, wait, || {
        let (st, ids, stops, tabs) = (
            st.clone(),
            lease_ids.clone(),
            stop_lease_ids.clone(),
            tabs.clone(),
        );
        async move {
            let mut answers = page_checks(&st, &ids, &tabs);
            let asked: Vec<String> = answers.iter().map(|(id, _)| id.clone()).collect();
            let store = crate::attachments::Store::new(st.profile().dir());
            let more = st
                .ledger()
                .call(move |l| look(l, &ids, &asked, &stops, &store))
                .await;
            answers.extend(more);
            let done = !answers.is_empty();
            Ok((answers, done))
        }
    })
    .await?;
    let answers: Vec<Value> = answers.into_iter().map(|(_, v)| v).collect();
    Ok(json!({ "answers": answers }))
}

/// A person's Check this page for a waiting tab goes first: it types nothing.
fn page_checks(
    st: &BridgeState,
    ids: &[String],
    tabs: &HashMap<String, String>,
) -> Vec<(String, Value)> {
    ids.iter()
        .filter_map(|id| {
            let ask = st.asks().hand_out(tabs.get(id)?)?;
            let entry = json!({ "lease_id": id, "wants": "send", "send": null, "page_check": ask });
            Some((id.clone(), entry))
        })
        .collect()
}

/// One look at every lease of the poll, in one ledger call: a claim (or the claim the
/// lease already holds) for each lease waiting for a send and not handed a page check,
/// and the remote stops of each lease waiting for one, when one is pending.
fn look(
    l: &mut Ledger,
    ids: &[String],
    asked: &[String],
    stops: &[String],
    store: &crate::attachments::Store,
) -> Vec<(String, Value)> {
    let mut answers = Vec::new();
    for id in ids.iter().filter(|id| !asked.contains(id)) {
        match take_with_files(l, id, store) {
            Ok(Some(send)) => answers.push((
                id.clone(),
                json!({ "lease_id": id, "wants": "send", "send": handed(&send) }),
            )),
            Ok(None) => {}
            Err(e) => answers.push((id.clone(), refused(id, "send", e))),
        }
    }
    for id in stops {
        l.hear_lease(id);
        let open = l.get_lease(id).and_then(|_| l.remote_stops_of_lease(id));
        match open {
            Ok(s) if s.iter().any(|s| s.phase == RemotePhase::Pending) => answers.push((
                id.clone(),
                json!({ "lease_id": id, "wants": "stops", "remote_stops": s }),
            )),
            Ok(_) => {}
            Err(e) => answers.push((id.clone(), refused(id, "stops", e))),
        }
    }
    answers
}

/// A lease's refusal inside the poll's answer, as the one-lease poll would have answered it.
fn refused(id: &str, wants: &str, e: LedgerError) -> Value {
    let e = ApiError::from(e);
    json!({
        "lease_id": id,
        "wants": wants,
        "error": { "status": e.status.as_u16(), "code": e.code, "message": e.message },
    })
}
