//! The scripted steps the custody child runs, shared by the child binary and the tests
//! that drive it (one definition, so both sides agree on ids and receipts).

use sendledger::ledger::{Receipt, TabBinding};

/// One durable step of a child's script, written on its command line as `name[:arg]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `Ledger::open` (takes the owner lock and runs recovery).
    Open,
    /// Queue a send with operation id `op` and text `"text of <op>"`.
    Queue(String),
    /// Lease tab `tab`.
    Lease(String),
    /// Claim the next send for the latest lease (must hand one out).
    Claim,
    /// Ask the dispatch grant for `op` under the latest lease.
    Dispatch(String),
    /// Record [`receipt_for`] `op`.
    Accept(String),
    /// Record the final answer of `op`.
    Complete(String),
    /// A witnessed failure of `op`.
    Fail(String),
    /// Stop (by `"child"`).
    Stop,
    /// Withdraw `op` (by `"child"`).
    Withdraw(String),
    /// Admit tool call `call`.
    ToolAdmit(String),
    /// Start tool call `call`.
    ToolStart(String),
    /// Settle tool call `call` with outcome `"done"`.
    ToolSettle(String),
    /// Lease tab `race` and take `n` sends `race-<i>` through queue, claim, dispatch,
    /// accept and complete, printing `claimed race-<i>` and `dispatched race-<i>` after
    /// those commits.
    Race(u32),
    /// Print `pruning`, then run retention's prune passes of `n` sends each until one
    /// finds less than a full batch (issue 39).
    Prune(u32),
}

impl Step {
    /// Parses `name[:arg]`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (name, arg) = match s.split_once(':') {
            Some((n, a)) => (n, Some(a.to_string())),
            None => (s, None),
        };
        let need = |arg: Option<String>| arg.ok_or_else(|| format!("step {s:?} needs an argument"));
        Ok(match name {
            "open" => Step::Open,
            "queue" => Step::Queue(need(arg)?),
            "lease" => Step::Lease(need(arg)?),
            "claim" => Step::Claim,
            "dispatch" => Step::Dispatch(need(arg)?),
            "accept" => Step::Accept(need(arg)?),
            "complete" => Step::Complete(need(arg)?),
            "fail" => Step::Fail(need(arg)?),
            "stop" => Step::Stop,
            "withdraw" => Step::Withdraw(need(arg)?),
            "tool-admit" => Step::ToolAdmit(need(arg)?),
            "tool-start" => Step::ToolStart(need(arg)?),
            "tool-settle" => Step::ToolSettle(need(arg)?),
            "race" => Step::Race(
                need(arg)?
                    .parse()
                    .map_err(|e| format!("race needs a count: {e}"))?,
            ),
            "prune" => Step::Prune(
                need(arg)?
                    .parse()
                    .map_err(|e| format!("prune needs a batch: {e}"))?,
            ),
            other => return Err(format!("unknown step {other:?}")),
        })
    }
}

/// The text the child queues for `op`.
pub fn text_for(op: &str) -> String {
    format!("text of {op}")
}

/// The native receipt the child records for `op` (unique per op).
pub fn receipt_for(op: &str) -> Receipt {
    Receipt {
        conversation_id: "conv-kill".into(),
        user_message_id: format!("user-msg-{op}"),
        turn_id: format!("turn-{op}"),
    }
}

/// The tab binding the child leases for `tab`.
pub fn binding_for(tab: &str) -> TabBinding {
    TabBinding {
        tab_id: tab.into(),
        conversation_id: Some("conv-kill".into()),
        thread_id: None,
        workspace_id: None,
        site: Default::default(),
    }
}
