//! What a send's committed state means to a client: the one table every door words
//! (the OpenAI chat and Responses doors, MCP, the CLI). A door picks its own status codes
//! and sentences for a [`Standing`]; whether the client is told now or waits, whether a
//! new send of the same message could make a second copy, and the stable code are
//! decided here only. It reads a state by its wire name (docs/bridge-api.md), so the MCP
//! server, which never links the ledger's types, words the same table; a name it does not
//! know reads as uncertain (never safe). `tests/verdict.rs` checks every ledger state is
//! known here.
//!
//! | state | standing | code | settled | retry_safe |
//! | --- | --- | --- | --- | --- |
//! | queued, claimed, dispatched, accepted (answer awaited) | pending | `pending` | no | no |
//! | completed (answer seen) | answered | `completed` | yes | no |
//! | completed (no answer), accepted (answer given up), confirmed | went out | `answer_not_observed` | yes | no |
//! | uncertain | uncertain | `send_uncertain` | yes | no |
//! | page_error | page said no | `page_error` | yes | no |
//! | stopped (Stop, or withdrawn) | stopped | `stopped` | yes | no (a person's decision) |
//! | rejected | never left | `send_rejected` | yes | **yes** |
//! | abandoned | abandoned | `send_abandoned` | yes | no (a person's decision) |
//!
//! `retry_safe` is true only when the message certainly never reached the chat and no
//! person decided against it: a *new* send (a new operation id) cannot make a second
//! copy. A retry of the same request never makes one either way: it attaches.

use serde::Serialize;

/// Where a send stands for a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// On its way (queued, claimed, dispatched, or received and being answered).
    Pending,
    /// Received by the page and answered; the answer was seen.
    Answered,
    /// It went out once (received, or a person confirmed it), but its answer was not seen.
    WentOut,
    /// The click may or may not have happened: a person decides.
    Uncertain,
    /// The page received it and answered with an error (a limit, "Something went wrong").
    PageSaidNo,
    /// A person stopped it before it was clicked (Stop, or withdrew this send).
    Stopped,
    /// It never left this computer: nothing was clicked.
    NeverLeft,
    /// A person abandoned it.
    Abandoned,
}

/// What a client is told about one send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// Where it stands.
    pub standing: Standing,
    /// The stable code (the OpenAI doors' `error.code`, MCP's and the CLI's `code`).
    pub code: &'static str,
    /// Whether the client is told the outcome now (`false`: keep waiting).
    pub settled: bool,
    /// Whether a *new* send of the same message cannot make a second copy.
    pub retry_safe: bool,
}

impl Verdict {
    /// The verdict for a send whose state is named `state` (the ledger's wire name:
    /// `queued`, …, `page_error`); `answer_seen`: its final answer was observed;
    /// `answer_given_up`: the owner stopped waiting for the answer of an accepted send.
    /// An unknown name reads as uncertain: never settled as safe.
    pub fn of_state(state: &str, answer_seen: bool, answer_given_up: bool) -> Self {
        use Standing::*;
        let (standing, code) = match state {
            "queued" | "claimed" | "dispatched" => (Pending, "pending"),
            "accepted" if !answer_given_up => (Pending, "pending"),
            "completed" if answer_seen => (Answered, "completed"),
            "completed" | "accepted" | "confirmed" => (WentOut, "answer_not_observed"),
            "uncertain" => (Uncertain, "send_uncertain"),
            "page_error" => (PageSaidNo, "page_error"),
            "stopped" => (Stopped, "stopped"),
            "rejected" => (NeverLeft, "send_rejected"),
            "abandoned" => (Abandoned, "send_abandoned"),
            _ => (Uncertain, "unknown_state"),
        };
        Self {
            standing,
            code,
            settled: standing != Pending,
            retry_safe: standing == NeverLeft,
        }
    }

    /// Whether the state name is one this table reads (not the unknown fallback).
    pub fn knows(state: &str) -> bool {
        Self::of_state(state, false, false).code != "unknown_state"
    }
}
