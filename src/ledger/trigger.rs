//! The ledger's triggers refuse a write with `RAISE(ABORT, '…')`; this is the one place
//! their messages are read. A shipped migration is never edited, so the messages stay
//! as they were written; each refusal the code acts on is named here by the start of its
//! message, and nowhere else is a trigger's message matched.

/// A trigger's refusal the ledger's code tells apart from the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TriggerRefusal {
    /// A fence trigger: the epoch (or the gate) is stopped (`epoch stopped: …`).
    EpochStopped,
    /// `tool receipts full`: the tool receipts' bound is reached.
    ToolReceiptsFull,
    /// `remote stop already settled`: a settled remote stop is written once.
    RemoteStopSettled,
    /// `illegal remote stop phase`: an edge the remote stop's phases do not allow.
    IllegalRemoteStopPhase,
    /// Any other trigger (an illegal state edge, an immutable row, …).
    Other,
}

/// Message start → refusal, the one table.
const MESSAGES: &[(&str, TriggerRefusal)] = &[
    ("epoch stopped", TriggerRefusal::EpochStopped),
    ("tool receipts full", TriggerRefusal::ToolReceiptsFull),
    (
        "remote stop already settled",
        TriggerRefusal::RemoteStopSettled,
    ),
    (
        "illegal remote stop phase",
        TriggerRefusal::IllegalRemoteStopPhase,
    ),
];

/// The trigger refusal `e` is, with its message; `None` when `e` is not a trigger's
/// refusal (a constraint violation with a message).
pub(crate) fn refusal(e: &rusqlite::Error) -> Option<(TriggerRefusal, &str)> {
    match e {
        rusqlite::Error::SqliteFailure(f, Some(m))
            if f.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            Some((kind(m), m))
        }
        _ => None,
    }
}

/// The refusal a trigger's message names.
pub(crate) fn kind(message: &str) -> TriggerRefusal {
    MESSAGES
        .iter()
        .find(|(start, _)| message.starts_with(start))
        .map_or(TriggerRefusal::Other, |(_, k)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message the code acts on is one a migration raises, word for word at its
    /// start: a trigger reworded in a new migration would fail here, not quietly become
    /// `Other`.
    #[test]
    fn every_trigger_refusal_named_here_is_raised_by_a_migration() {
        let sql: String = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        for (start, k) in MESSAGES {
            assert!(
                sql.contains(&format!("RAISE(ABORT, '{start}")),
                "no trigger raises a message starting {start:?} ({k:?})"
            );
        }
        assert_eq!(
            kind("epoch stopped: dispatch refused"),
            TriggerRefusal::EpochStopped
        );
        assert_eq!(kind("illegal state edge"), TriggerRefusal::Other);
    }
}
