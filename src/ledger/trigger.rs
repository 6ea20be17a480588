//! The ledger's triggers refuse a write with `RAISE(ABORT, '<code>: <sentence>')`
//! (migration 0012 gave every trigger its code); this is the one place their messages are
//! read, by that code. Nowhere else is a trigger's message matched.

/// A trigger's refusal, by the code its message starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TriggerRefusal {
    /// `epoch_stopped`: a fence trigger, the epoch (or the gate) is stopped.
    EpochStopped,
    /// `tool_receipts_full`: the tool receipts' bound is reached.
    ToolReceiptsFull,
    /// `remote_stop_settled`: a settled remote stop is written once.
    RemoteStopSettled,
    /// `illegal_remote_stop_phase`: an edge the remote stop's phases do not allow.
    IllegalRemoteStopPhase,
    /// `illegal_edge`: an edge a send's or a tool call's states do not allow.
    IllegalEdge,
    /// `immutable`: a column written once.
    Immutable,
    /// `append_only`: a row that is never deleted (or only when its time came).
    AppendOnly,
    /// `one_in_flight`: another send holds the profile's one browser-send slot.
    OneInFlight,
    /// `before_dispatch`: evidence for a send never recorded as dispatched.
    BeforeDispatch,
    /// `evidence_required`: a transition that needs its evidence.
    EvidenceRequired,
    /// `limit_gate_closed`: the usage-limit gate holds sends back.
    LimitGateClosed,
    /// `page_gate_closed`: the page-changed gate holds sends back (migration 0018).
    PageGateClosed,
    /// A message with no code this build knows (a trigger of a newer schema).
    Other,
}

/// Code → refusal, the one table.
const CODES: &[(&str, TriggerRefusal)] = &[
    ("epoch_stopped", TriggerRefusal::EpochStopped),
    ("tool_receipts_full", TriggerRefusal::ToolReceiptsFull),
    ("remote_stop_settled", TriggerRefusal::RemoteStopSettled),
    (
        "illegal_remote_stop_phase",
        TriggerRefusal::IllegalRemoteStopPhase,
    ),
    ("illegal_edge", TriggerRefusal::IllegalEdge),
    ("immutable", TriggerRefusal::Immutable),
    ("append_only", TriggerRefusal::AppendOnly),
    ("one_in_flight", TriggerRefusal::OneInFlight),
    ("before_dispatch", TriggerRefusal::BeforeDispatch),
    ("evidence_required", TriggerRefusal::EvidenceRequired),
    ("limit_gate_closed", TriggerRefusal::LimitGateClosed),
    ("page_gate_closed", TriggerRefusal::PageGateClosed),
];

/// The trigger refusal `e` is, with its sentence; `None` when `e` is not a trigger's
/// refusal (a constraint violation with a message).
pub(crate) fn refusal(e: &rusqlite::Error) -> Option<(TriggerRefusal, &str)> {
    match e {
        rusqlite::Error::SqliteFailure(f, Some(m))
            if f.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            Some(parse(m))
        }
        _ => None,
    }
}

/// A trigger's message, `<code>: <sentence>`, read: the refusal its code names (`Other`
/// for none this build knows) and the sentence (the whole message when it has no code).
pub(crate) fn parse(message: &str) -> (TriggerRefusal, &str) {
    let Some((code, sentence)) = message.split_once(": ") else {
        return (TriggerRefusal::Other, message);
    };
    match CODES.iter().find(|(c, _)| *c == code) {
        Some((_, k)) => (*k, sentence),
        None => (TriggerRefusal::Other, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coded_message_reads_as_its_refusal_and_sentence() {
        assert_eq!(
            parse("epoch_stopped: epoch stopped: dispatch refused"),
            (
                TriggerRefusal::EpochStopped,
                "epoch stopped: dispatch refused"
            )
        );
        assert_eq!(
            parse("from_the_future: something new"),
            (TriggerRefusal::Other, "from_the_future: something new")
        );
        assert_eq!(
            parse("illegal state edge"),
            (TriggerRefusal::Other, "illegal state edge")
        );
    }

    /// Every code a migration from 0012 on raises is in the table: a new trigger whose
    /// code this file does not know would fail here, not quietly become `Other`.
    #[test]
    fn every_code_a_trigger_raises_is_named_here() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations");
        let mut raised = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.as_str() < "0012" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let sql: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("--"))
                .collect();
            for part in sql.split("RAISE(ABORT, '").skip(1) {
                let message = part.split("')").next().unwrap_or_default();
                let (k, _) = parse(message);
                assert_ne!(
                    k,
                    TriggerRefusal::Other,
                    "{name}: {message:?} has no known code"
                );
                raised += 1;
            }
        }
        assert!(
            raised > 30,
            "migration 0012 recreates every raising trigger"
        );
    }
}
