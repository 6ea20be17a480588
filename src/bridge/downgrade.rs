//! A model downgrade is not a failure (issue 27, page states): when the account's limit for
//! a model is reached, chatgpt.com answers with another model ("Responses will use another
//! model until your limit resets after …") and the turn completes. The owner sees it by
//! structure — the model slug of the final answer against the one the page's request
//! named, and against the model the send asked for — not by the notice's words (the page
//! is localised). The send completes as usual; its timeline gets a note:
//!
//! - `model downgrade: the page's request asked for model R; the answer came from A` when
//!   the request named a model and one that is not it nor a resolution of it answered
//!   (`provider::chatgpt::models`: `auto` answers as any model, a dated snapshot as its model);
//! - `destination_mismatch: the page answered with model A; the send asked for M (sent
//!   once; never resent)` when the send named a model M and the page's request did not
//!   already carry a mismatch — written once, by the ledger's `note_answer_model` (the
//!   answer's own fact may have written it already).

use super::applied::Applied;
use super::error::ApiError;
use super::BridgeState;
use crate::ledger::{EvidenceKind, LedgerRead};
use crate::provider::chatgpt::models;

/// A `destination_mismatch` note when the answer's model is neither the one the send
/// asked for nor a resolution of it the provider lists (`models::RESOLUTIONS`); `None`
/// (nothing written) otherwise.
pub(crate) fn note_model(
    l: &mut crate::ledger::Ledger,
    op_id: &str,
    answered: &str,
) -> Result<Option<String>, crate::ledger::LedgerError> {
    let asked = l.destination(op_id)?.and_then(|d| d.model);
    if asked.is_some_and(|a| models::answers_as_asked(&a, answered)) {
        return Ok(None);
    }
    l.note_answer_model(op_id, answered)
}

/// Longest model slug written into a note, in characters.
const MAX_SLUG_CHARS: usize = 64;

fn slug(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .take(MAX_SLUG_CHARS)
        .collect()
}

/// Notes a downgrade and a model the send did not ask for on `op_id`'s timeline.
pub(crate) async fn apply(
    st: &BridgeState,
    op_id: String,
    answered: String,
    requested: Option<String>,
) -> Result<Applied, ApiError> {
    let answered = slug(&answered);
    let requested = requested.map(|r| slug(&r));
    let id = op_id.clone();
    let notes = st
        .ledger()
        .call(move |l| {
            let mut notes = Vec::new();
            if let Some(r) = requested.filter(|r| !models::answers_as_asked(r, &answered)) {
                let note = format!(
                    "model downgrade: the page's request asked for model {r}; the answer came from {answered}"
                );
                l.note_evidence(&id, EvidenceKind::Observed, &note)?;
                notes.push(note);
            }
            if let Some(mismatch) = note_model(l, &id, &answered)? {
                notes.push(mismatch);
            }
            Ok::<_, crate::ledger::LedgerError>(notes)
        })
        .await?;
    Ok(match notes.is_empty() {
        true => Applied::NotTracked {
            reason: format!("send {op_id}: answered by the model asked for"),
        },
        false => Applied::Noted {
            op_id,
            note: notes.join("; "),
        },
    })
}
